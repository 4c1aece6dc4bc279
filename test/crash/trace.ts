/** The crash points orch processes passed (ORCH_CRASH_TRACE, src/store/crash-points.ts): one JSON line each. */
import type { World } from "./world.ts"

export interface TracePoint {
  readonly role: string
  readonly pid: number
  readonly n: number
  readonly label: string
  /** Set on the point where the process signalled itself (ORCH_CRASH_AT). */
  readonly signal?: string
}

export const tracePoints = (world: World): Array<TracePoint> =>
  world.lines(world.traceFile).flatMap((line) => {
    try {
      return [JSON.parse(line) as TracePoint]
    } catch {
      // a line cut by a kill -9 mid-write: never, a line is one write
      return []
    }
  })

/** The point where a process signalled itself, if one did. */
export const crashedAt = (points: ReadonlyArray<TracePoint>): TracePoint | undefined => points.find((p) => p.signal !== undefined)

/** A label without what differs from run to run (the random name of `orch start --detach`'s report file). */
export const labelKind = (label: string): string => label.replace(/\.start-[0-9a-f-]+\.json/, ".start-<id>.json")
