/**
 * One run of a scenario on a fresh world: its steps (with the crash, if the plan has one; no step after it), then
 * recovery (recovery.ts), then the invariants. The uninterrupted run also measures the scenario (its Profile), which
 * the crashes are drawn from.
 */
import { readdirSync } from "node:fs"
import { type Crash, crashControl } from "./crash-control.ts"
import { checkInvariants, checkShownAfterCrash } from "./invariants.ts"
import { RECEIPT_TIMEOUT_MS, recover, until } from "./recovery.ts"
import type { Scenario } from "./scenarios.ts"
import type { TracePoint } from "./trace.ts"
import { tracePoints } from "./trace.ts"
import { isAlive, makeWorld } from "./world.ts"

export type { Crash, CrashSignal, Target } from "./crash-control.ts"

export interface Profile {
  /** Crash points the supervisor passed by the end of the steps. */
  readonly supervisorPoints: number
  /** Milliseconds from the supervisor's start to the end of the steps. */
  readonly supervisorMs: number
  /** Crash points each step's process passed (0 for steps that are not `orch` commands). */
  readonly stepPoints: ReadonlyArray<number>
  readonly stepMs: ReadonlyArray<number>
}

export interface RunResult {
  /** Where it died: the point it signalled itself at, or (an outside kill) the last point it passed before; none when the crash never came. */
  readonly died: TracePoint | undefined
  readonly crashed: boolean
  readonly violations: ReadonlyArray<string>
  /** What is amiss but no invariant: files a crash left behind. */
  readonly notes: ReadonlyArray<string>
  readonly ms: number
  readonly profile: Profile
}

const command = (args: ReadonlyArray<string>) => `\`orch ${args.join(" ")}\``
const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

/** The issues (and tasks) a step that exited 0 confirmed, and those whose entries it took off the queue itself. */
const promiseOf = (args: ReadonlyArray<string>): { confirmed: ReadonlyArray<string>; removed: ReadonlyArray<string>; tasks?: ReadonlyArray<string> } => {
  const [first, second, ...rest] = args
  if (first === "queue" && second === "add" && rest[1] === "--task") return { confirmed: [], removed: [], tasks: rest.slice(2, 3) }
  if (first === "queue" && second === "add") return { confirmed: rest.slice(1), removed: [] }
  if (first === "batch-spawn") return { confirmed: rest, removed: [] }
  if (first === "spawn") return { confirmed: rest.slice(0, 1), removed: [] }
  if (first === "queue" && second === "rm") return { confirmed: [], removed: rest.slice(0, 1) }
  return { confirmed: [], removed: [] }
}

/** An agent's environment file (it may hold secrets) is deleted by the agent's shell as it starts: one left was never read. */
const leftovers = (tmp: string): Array<string> =>
  readdirSync(tmp).filter((name) => name.startsWith("orch-env-")).map((name) => `an agent's environment file was left in TMPDIR: ${name}/env`)

/** Runs `scenario` once, crashing it as `crash` says (undefined: the uninterrupted, traced run). */
export const runScenario = async (scenario: Scenario, crash: Crash | undefined): Promise<RunResult> => {
  const began = Date.now()
  const world = await makeWorld(scenario.world)
  const control = crashControl(world, crash)
  try {
    const confirmed = new Set<string>()
    const tasks = new Set<string>()
    const removed = new Set<string>()
    const cutBatches: Array<ReadonlyArray<string>> = []
    const problems: Array<string> = []
    const stepPids: Array<number | undefined> = []
    const stepMs: Array<number> = []
    let supervisorSince: number | undefined

    for (const [index, step] of scenario.steps.entries()) {
      if (control.crashed()) break
      const stepBegan = Date.now()
      if (step._tag === "SetMaxSessions") world.writeConfig(step.maxSessions)
      else if (step._tag === "HostDown") await world.hostDown()
      else if (step._tag === "Outside") {
        try {
          await step.run(world)
        } catch (error) {
          problems.push(`the scenario's step failed: ${step.what}: ${firstLine(String(error))}`)
        }
      } else if (step._tag === "Wait") {
        if (!(await until(() => control.crashed() || step.until(world), RECEIPT_TIMEOUT_MS))) {
          problems.push(`the scenario's receipt never came within 30 s: ${step.what}`)
        }
      } else {
        const running = world.startOrch(step.args, { trace: true, crashAt: control.crashAt(index, step.args) })
        stepPids[index] = running.pid
        control.stepStarted(index, running.pid)
        const result = await running.done
        const promise = promiseOf(step.args)
        if (result.code === 0) promise.confirmed.forEach((issue) => confirmed.add(issue))
        if (result.code === 0) promise.tasks?.forEach((task) => tasks.add(task))
        if (result.code !== 0 && step.args[0] === "batch-spawn") cutBatches.push(promise.confirmed)
        // A `queue rm` that died may have removed the entry first: what it did was asked for.
        promise.removed.forEach((issue) => removed.add(issue))
        if (!control.crashed() && result.code !== 0) problems.push(`${command(step.args)} exited ${result.code ?? result.signal}: ${firstLine(result.stderr)}`)
        if (step.args[0] === "start" && result.code === 0) {
          supervisorSince = Date.now()
          world.supervisorPid()
          control.supervisorStarted()
        }
      }
      stepMs[index] = Date.now() - stepBegan
    }
    const atEndOfSteps = tracePoints(world)
    await control.settle(until)
    const supervisor = atEndOfSteps.filter((p) => p.role === "supervisor")
    const profile: Profile = {
      supervisorPoints: supervisor.length,
      supervisorMs: supervisorSince === undefined ? 0 : Date.now() - supervisorSince,
      stepPoints: scenario.steps.map((_, i) => atEndOfSteps.filter((p) => p.pid === stepPids[i] && p.role !== "supervisor").length),
      stepMs
    }
    const died = control.died()
    const crashed = control.crashed()
    // Right after the crash: once the crashed process is gone (one sent SIGTERM or SIGINT first runs its shutdown).
    if (crashed) {
      await until(() => {
        const pid = died?.pid
        return pid === undefined || !isAlive(pid)
      }, RECEIPT_TIMEOUT_MS)
      problems.push(...checkShownAfterCrash(await world.orch(["status", "--json"])))
    }
    const violations = [...problems, ...(await recover(world, control.signalledSupervisor()))]
    violations.push(...checkInvariants(world, { confirmed, tasks, removedByScenario: removed, cutBatches }))
    return { died, crashed, violations, notes: leftovers(world.tmp), ms: Date.now() - began, profile }
  } finally {
    control.dispose()
    await world.close()
  }
}
