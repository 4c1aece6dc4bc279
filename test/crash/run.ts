/**
 * One run of a scenario on a fresh world: its steps (with the crash, if the plan has one), then recovery (`orch
 * start --detach` without the crash variables, its first admission round, `orch stop`), then the invariants.
 */
import { readdirSync } from "node:fs"
import { crashRole } from "../../src/store/crash-points.ts"
import { checkInvariants } from "./invariants.ts"
import { admissionPid } from "./observe.ts"
import type { Scenario, Step } from "./scenarios.ts"
import { crashedAt, type TracePoint, tracePoints } from "./trace.ts"
import { isAlive, makeWorld, type World } from "./world.ts"

export type CrashSignal = "SIGKILL" | "SIGTERM" | "SIGINT"
/** Whom the crash hits: the supervisor the scenario starts, or the process of one of its `orch` steps. */
export type Target = { readonly _tag: "Supervisor" } | { readonly _tag: "Step"; readonly index: number }
export type Crash =
  /** The target signals itself at its n-th crash point (ORCH_CRASH_AT). */
  | { readonly _tag: "Point"; readonly target: Target; readonly n: number; readonly signal: CrashSignal }
  /** `kill -9` of the target from outside, `delayMs` after it started. */
  | { readonly _tag: "External"; readonly target: Target; readonly delayMs: number }

export interface RunResult {
  /** Where it died: the point it signalled itself at, or (an outside kill) the last point it passed before; none when the crash never came. */
  readonly died: TracePoint | undefined
  readonly crashed: boolean
  readonly violations: ReadonlyArray<string>
  /** What is amiss but no invariant: files a crash left behind. */
  readonly notes: ReadonlyArray<string>
  readonly ms: number
  /** What the uninterrupted run shows of the scenario: crash points of the supervisor and of each step, and their times. */
  readonly profile: Profile
}

export interface Profile {
  /** Crash points the supervisor passed by the end of the steps. */
  readonly supervisorPoints: number
  /** Milliseconds from the supervisor's start to the end of the steps. */
  readonly supervisorMs: number
  /** Crash points each step's process passed (0 for steps that are not `orch` commands). */
  readonly stepPoints: ReadonlyArray<number>
  readonly stepMs: ReadonlyArray<number>
  readonly labels: ReadonlyArray<string>
}

const RECEIPT_TIMEOUT_MS = 30_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `probe` every 50 ms until it holds; false when `ms` passed first. */
export const until = async (probe: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  for (;;) {
    if (probe()) return true
    if (Date.now() > end) return false
    await sleep(50)
  }
}

const isStart = (args: ReadonlyArray<string>) => args[0] === "start"
const command = (args: ReadonlyArray<string>) => `\`orch ${args.join(" ")}\``
const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

/** ORCH_CRASH_AT for the process of step `index`: its own point, or the supervisor's when it starts the supervisor. */
const crashAtFor = (crash: Crash | undefined, index: number, args: ReadonlyArray<string>): string | undefined => {
  if (crash?._tag !== "Point") return undefined
  if (crash.target._tag === "Step" && crash.target.index === index) return `${crashRole(args)}:${crash.n}:${crash.signal}`
  if (crash.target._tag === "Supervisor" && isStart(args)) return `supervisor:${crash.n}:${crash.signal}`
  return undefined
}

/** What a step that exited 0 promised, and what it took off the queue itself. */
const promiseOf = (args: ReadonlyArray<string>) => {
  const [first, second, ...rest] = args
  if (first === "queue" && second === "add") return { confirmed: rest.slice(1), removed: [] }
  if (first === "batch-spawn") return { confirmed: rest, removed: [] }
  if (first === "spawn") return { confirmed: rest.slice(0, 1), removed: [] }
  if (first === "queue" && second === "rm") return { confirmed: [], removed: rest.slice(0, 1) }
  return { confirmed: [], removed: [] }
}

/**
 * Recovery as a user does it after a crash: a supervisor still running (the crash hit a command) is stopped, one that
 * got a signal is waited for; `orch start --detach`; its first admission round (admission.json written by its pid);
 * `orch stop`, sessions left running. Answers what went wrong on the way.
 */
const recover = async (world: World, signalled: boolean): Promise<Array<string>> => {
  const problems: Array<string> = []
  const previous = world.supervisorPid()
  if (previous !== undefined && isAlive(previous)) {
    if (signalled && !(await until(() => !isAlive(previous), RECEIPT_TIMEOUT_MS))) {
      problems.push(`the supervisor (pid ${previous}) did not exit within 30 s of its signal`)
    }
    if (isAlive(previous)) {
      const stopped = await world.orch(["stop"])
      if (stopped.code !== 0) problems.push(`recovery: \`orch stop\` of the running supervisor exited ${stopped.code}: ${firstLine(stopped.stderr)}`)
    }
  }
  const started = await world.orch(["start", "app", "--detach", "--no-open"])
  if (started.code !== 0) return [...problems, `recovery: \`orch start --detach\` exited ${started.code}: ${firstLine(started.stderr)}`]
  const pid = world.supervisorPid()
  if (!(await until(() => pid !== undefined && admissionPid(world) === pid, RECEIPT_TIMEOUT_MS))) {
    problems.push(`recovery: the new supervisor (pid ${pid}) ran no admission round within 30 s (admission.json names pid ${admissionPid(world)})`)
  }
  const stopped = await world.orch(["stop"])
  if (stopped.code !== 0) problems.push(`recovery: \`orch stop\` exited ${stopped.code}: ${firstLine(stopped.stderr)}`)
  if (pid !== undefined && !(await until(() => !isAlive(pid), RECEIPT_TIMEOUT_MS))) problems.push(`recovery: the supervisor (pid ${pid}) did not stop`)
  return problems
}

/** An agent's environment file (it may hold secrets) is deleted by the agent's shell as it starts: one left was never read. */
const leftovers = (world: World): Array<string> =>
  readdirSync(world.tmp).filter((name) => name.startsWith("orch-env-")).map((name) => `an agent's environment file was left in TMPDIR: ${name}/env`)

/** Runs `scenario` once, crashing it as `crash` says (undefined: the uninterrupted, traced run). */
export const runScenario = async (scenario: Scenario, crash: Crash | undefined): Promise<RunResult> => {
  const began = Date.now()
  const world = await makeWorld(scenario.world)
  const timers: Array<ReturnType<typeof setTimeout>> = []
  try {
    const confirmed = new Set<string>()
    const removed = new Set<string>()
    const problems: Array<string> = []
    let killedFromOutside: { readonly pid: number; readonly at: number } | undefined
    const killLater = (pid: () => number | undefined, delayMs: number) =>
      timers.push(setTimeout(() => {
        const target = pid()
        if (target === undefined || !isAlive(target)) return
        process.kill(target, "SIGKILL")
        killedFromOutside = { pid: target, at: Date.now() }
      }, delayMs))
    const crashed = () => killedFromOutside !== undefined || crashedAt(tracePoints(world)) !== undefined
    const stepPids: Array<number | undefined> = []
    const stepMs: Array<number> = []
    let supervisorSince: number | undefined
    let externalDue: number | undefined

    const runStep = async (step: Step, index: number) => {
      if (step._tag === "SetMaxSessions") return world.writeConfig(step.maxSessions)
      if (step._tag === "HostDown") return world.hostDown()
      if (step._tag === "Wait") {
        const done = await until(() => (crash !== undefined && crashed()) || step.until(world), RECEIPT_TIMEOUT_MS)
        if (!done) problems.push(`the scenario's receipt never came within 30 s: ${step.what}`)
        return
      }
      const running = world.startOrch(step.args, { trace: true, crashAt: crashAtFor(crash, index, step.args) })
      stepPids[index] = running.pid
      if (crash?._tag === "External" && crash.target._tag === "Step" && crash.target.index === index) killLater(() => running.pid, crash.delayMs)
      const result = await running.done
      if (result.code === 0) {
        const promise = promiseOf(step.args)
        promise.confirmed.forEach((issue) => confirmed.add(issue))
        promise.removed.forEach((issue) => removed.add(issue))
      } else if (step.args[0] === "queue" && step.args[1] === "rm") {
        // It may have removed the entry before it died: what it did was asked for.
        promiseOf(step.args).removed.forEach((issue) => removed.add(issue))
      }
      if (!crashed() && result.code !== 0) problems.push(`${command(step.args)} exited ${result.code ?? result.signal}: ${firstLine(result.stderr)}`)
      if (isStart(step.args) && result.code === 0) {
        supervisorSince = Date.now()
        world.supervisorPid()
        if (crash?._tag === "External" && crash.target._tag === "Supervisor") {
          externalDue = Date.now() + crash.delayMs
          killLater(world.supervisorPid, crash.delayMs)
        }
      }
    }

    for (const [index, step] of scenario.steps.entries()) {
      if (crash !== undefined && crashed()) break
      const stepBegan = Date.now()
      await runStep(step, index)
      stepMs[index] = Date.now() - stepBegan
    }
    const atEndOfSteps = tracePoints(world)
    // A supervisor's n-th point may come a little later than in the traced run (its rounds run on a clock).
    if (crash !== undefined) await until(crashed, crash._tag === "External" ? Math.max(0, (externalDue ?? 0) - Date.now()) + 1000 : 10_000)
    const supervisorPids = new Set(atEndOfSteps.filter((p) => p.role === "supervisor").map((p) => p.pid))
    const profile: Profile = {
      supervisorPoints: atEndOfSteps.filter((p) => p.role === "supervisor").length,
      supervisorMs: supervisorSince === undefined ? 0 : Date.now() - supervisorSince,
      stepPoints: scenario.steps.map((_, i) => atEndOfSteps.filter((p) => p.pid === stepPids[i] && !supervisorPids.has(p.pid)).length),
      stepMs,
      labels: atEndOfSteps.map((p) => p.label)
    }
    const points = tracePoints(world)
    const died = crashedAt(points) ?? (killedFromOutside === undefined ? undefined : points.filter((p) => p.pid === killedFromOutside!.pid).at(-1))
    timers.forEach(clearTimeout)
    const signalled = crash !== undefined && crash.target._tag === "Supervisor" && crashed()
    const violations = [...problems, ...(await recover(world, signalled))]
    violations.push(...checkInvariants(world, { confirmed, removedByScenario: removed }))
    return { died, crashed: crash !== undefined && crashed(), violations, notes: leftovers(world), ms: Date.now() - began, profile }
  } finally {
    timers.forEach(clearTimeout)
    await world.close()
  }
}
