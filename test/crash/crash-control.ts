/**
 * One run's crash: which process gets ORCH_CRASH_AT, the `kill -9` from outside and when, whether the crash came,
 * and where the process died.
 */
import { crashRole } from "../../src/store/crash-points.ts"
import { crashedAt, type TracePoint, tracePoints } from "./trace.ts"
import { isAlive, type World } from "./world.ts"

export type CrashSignal = "SIGKILL" | "SIGTERM" | "SIGINT"
/** Whom the crash hits: the supervisor the scenario starts, or the process of one of its `orch` steps. */
export type Target = { readonly _tag: "Supervisor" } | { readonly _tag: "Step"; readonly index: number }
export type Crash =
  /** The target signals itself at its n-th crash point (ORCH_CRASH_AT). */
  | { readonly _tag: "Point"; readonly target: Target; readonly n: number; readonly signal: CrashSignal }
  /** `kill -9` of the target from outside, `delayMs` after it started. */
  | { readonly _tag: "External"; readonly target: Target; readonly delayMs: number }

const isStart = (args: ReadonlyArray<string>) => args[0] === "start"
const targets = (target: Target, index: number, args: ReadonlyArray<string>) => target._tag === "Step" ? target.index === index : isStart(args)

export const crashControl = (world: World, crash: Crash | undefined) => {
  const timers: Array<ReturnType<typeof setTimeout>> = []
  let killed: number | undefined
  let externalDue: number | undefined
  const killLater = (pid: () => number | undefined, delayMs: number) => {
    externalDue = Date.now() + delayMs
    timers.push(setTimeout(() => {
      const target = pid()
      if (target === undefined || !isAlive(target)) return
      process.kill(target, "SIGKILL")
      killed = target
    }, delayMs))
  }
  const crashed = () => crash !== undefined && (killed !== undefined || crashedAt(tracePoints(world)) !== undefined)

  return {
    crashed,
    /** ORCH_CRASH_AT for step `index`'s process: its own point, or the supervisor's when it starts the supervisor. */
    crashAt: (index: number, args: ReadonlyArray<string>): string | undefined => {
      if (crash?._tag !== "Point" || !targets(crash.target, index, args)) return undefined
      return `${crash.target._tag === "Supervisor" ? "supervisor" : crashRole(args)}:${crash.n}:${crash.signal}`
    },
    /** Step `index`'s process started: a kill from outside aimed at it is scheduled. */
    stepStarted: (index: number, pid: number) => {
      if (crash?._tag === "External" && crash.target._tag === "Step" && crash.target.index === index) killLater(() => pid, crash.delayMs)
    },
    /** The supervisor answers: a kill from outside aimed at it is scheduled. */
    supervisorStarted: () => {
      if (crash?._tag === "External" && crash.target._tag === "Supervisor") killLater(world.supervisorPid, crash.delayMs)
    },
    /** Waits for the crash to come after the steps (a supervisor's n-th point may come a little later than in the traced run). */
    settle: async (until: (probe: () => boolean, ms: number) => Promise<boolean>) => {
      if (crash === undefined) return
      await until(crashed, crash._tag === "External" ? Math.max(0, (externalDue ?? Date.now()) - Date.now()) + 1000 : 10_000)
      timers.forEach(clearTimeout)
    },
    /** Whether the supervisor was the one signalled (recovery waits for it to finish exiting). */
    signalledSupervisor: () => crash?.target._tag === "Supervisor" && crashed(),
    /** The point it signalled itself at, or for a kill from outside the last point the process passed. */
    died: (): TracePoint | undefined => {
      const points = tracePoints(world)
      return crashedAt(points) ?? (killed === undefined ? undefined : points.filter((p) => p.pid === killed).at(-1))
    },
    dispose: () => timers.forEach(clearTimeout)
  }
}
