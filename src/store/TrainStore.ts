/**
 * The merge trains on disk: `<dataDir>/trains/<projectId>.json`, one file per project, written whole (temp file,
 * fsync, rename: files.ts) under the project's `train-<projectId>` lock, so a `kill -9` leaves the old train or the
 * new one. Read with a Schema; a file that does not decode is an error, never an empty train.
 *
 * A change and its events (`train.joined`, `train.updated`, `train.merged`, `train.left`) are one step, as the
 * queue's (outbox.ts): the events are written in the file with the change, then appended to the event log, then
 * cleared; whoever changes the train next appends what a crash left in the outbox, unless the log has it already.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { Host, type HostShape } from "../config/host.ts"
import type { NewEvent } from "../domain/event.ts"
import { emptyTrain, TrainFile } from "../domain/train.ts"
import type { StoreError } from "./errors.ts"
import { EventLog, type EventLogShape } from "./EventLog.ts"
import { writeFileAtomic } from "./files.ts"
import { readJsonFile } from "./json-file.ts"
import { type LockTimeout, withLock } from "./lock.ts"
import { changeWithOutbox } from "./outbox.ts"
import { dataDir, storePaths } from "./paths.ts"

const decodeTrain = Schema.decodeUnknownResult(Schema.fromJsonString(TrainFile))

export type TrainError = StoreError | LockTimeout

/** What a change answers: the next train (undefined: unchanged) and the events of the change. */
export interface TrainChange {
  readonly file?: TrainFile | undefined
  readonly events?: ReadonlyArray<NewEvent>
}

export interface TrainStoreShape {
  readonly read: (projectId: string) => Effect.Effect<TrainFile, StoreError>
  /**
   * Reads, changes and writes a project's train under its lock, the events written down with the change before they
   * are appended; answers the train as it is after.
   */
  readonly change: (projectId: string, f: (file: TrainFile, nowIso: string) => TrainChange) => Effect.Effect<TrainFile, TrainError>
}

const trainPath = (root: string, projectId: string) => join(storePaths(root).trains, `${projectId}.json`)

const readTrain = (root: string, projectId: string): Effect.Effect<TrainFile, StoreError> =>
  readJsonFile(trainPath(root, projectId), decodeTrain, {
    missing: emptyTrain(projectId),
    whenUnreadable: "stop the supervisor and move it away to start the project's train empty"
  })

/** Every project's train in the data directory `root`: for readers (`orch train ls`, `orch status`, the dashboard). */
export const listTrains = (root: string): Effect.Effect<ReadonlyArray<TrainFile>, StoreError> =>
  Effect.suspend(() => {
    let names: Array<string>
    try {
      names = readdirSync(storePaths(root).trains).filter((name) => name.endsWith(".json"))
    } catch {
      return Effect.succeed([])
    }
    return Effect.forEach(names.sort(), (name) => readTrain(root, name.slice(0, -".json".length)))
  })

export class TrainStore extends Context.Service<TrainStore, TrainStoreShape>()("orch/store/TrainStore") {
  static readonly make = (root: string, events: EventLogShape): TrainStoreShape => {
    const paths = storePaths(root)
    const change = (projectId: string, f: (file: TrainFile, nowIso: string) => TrainChange) =>
      withLock(paths.locks, `train-${projectId}`, "30 seconds")(changeWithOutbox(
        events,
        {
          read: readTrain(root, projectId),
          write: (file, durable) => writeFileAtomic(trainPath(root, file.projectId), `${JSON.stringify(file, null, 2)}\n`, { durable })
        },
        (file, nowIso) => {
          const { file: next, events: news = [] } = f(file, nowIso)
          return [next, next ?? file, news] as const
        }
      ))

    return { read: (projectId) => readTrain(root, projectId), change }
  }

  /** The trains in `~/.orchestrator` (or `ORCH_HOME`). */
  static readonly layer = Layer.effect(
    TrainStore,
    Effect.gen(function*() {
      const host: HostShape = yield* Host
      return TrainStore.make(dataDir(host), yield* EventLog)
    })
  )
}
