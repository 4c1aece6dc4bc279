/** The merge trains as `orch train ls` and `orch status` show them: each car in order, with what the head car waits on. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { carLine, carsInOrder, type TrainCar, type TrainFile, waitingOn } from "../domain/train.ts"
import { listTrains } from "../store/TrainStore.ts"

/** A car as `--json` shows it. */
export interface ShownCar extends TrainCar {
  readonly position: number
  readonly waitingOn: string
}

export interface ShownTrain {
  readonly projectId: string
  readonly cars: ReadonlyArray<ShownCar>
}

export const showTrain = (file: TrainFile): ShownTrain => ({
  projectId: file.projectId,
  cars: carsInOrder(file).map((car, i) => ({ position: i + 1, waitingOn: waitingOn(car, i + 1), ...car }))
})

/** Every train with cars (of `project` only, when given); a train file that cannot be read is a warning. */
export const shownTrains = (root: string, project?: string) =>
  listTrains(root).pipe(
    Effect.map((files) => files.filter((file) => project === undefined || file.projectId === project).map(showTrain)),
    Effect.catch((error) => Effect.as(Console.error(`orch: warning: ${error.message}`), [] as ReadonlyArray<ShownTrain>))
  )

/** Under the trains when no supervisor runs: what they show is where they stand, not work under way. */
export const NO_SUPERVISOR_LINE = "No supervisor is running, so the trains stand where they are: nothing is updated or merged until `orch start`."

/** "Merge train app (2):" and a line per car, for each train with cars; then, with no supervisor, NO_SUPERVISOR_LINE. */
export const trainLines = (trains: ReadonlyArray<ShownTrain>, supervised: boolean): ReadonlyArray<string> => {
  const lines = trains.filter((train) => train.cars.length > 0).flatMap((train) => [
    `Merge train ${train.projectId} (${train.cars.length}):`,
    ...train.cars.map((car) => carLine(car, car.position))
  ])
  return lines.length > 0 && !supervised ? [...lines, NO_SUPERVISOR_LINE] : lines
}

/** Each car's place, by session, for `orch status --json`. */
export const trainPlaces = (trains: ReadonlyArray<ShownTrain>): ReadonlyMap<string, { readonly position: number; readonly waitingOn: string }> =>
  new Map(trains.flatMap((train) => train.cars.map((car) => [car.sessionId, { position: car.position, waitingOn: car.waitingOn }] as const)))

/** What `orch status` shows of the trains: the lines under the queue, and each session's place for `--json`. */
export const statusTrains = (root: string, supervised: boolean) =>
  Effect.map(shownTrains(root), (trains) => ({ lines: trainLines(trains, supervised), places: trainPlaces(trains) }))
