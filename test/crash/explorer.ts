/**
 * The crash-point explorer (issue 20, DESIGN.md principle 11): for each seed, a scenario, a process of it (the
 * supervisor or one of its `orch` commands), a crash point of that process (from an uninterrupted, traced run of the
 * scenario) and a signal (mostly SIGKILL, also SIGTERM and SIGINT), or now and then a `kill -9` from outside at a
 * seeded moment; then recovery and the invariants. Plain TypeScript with erasable syntax: `node` imports it as it
 * is (bench/crash-explorer.mjs), and vitest too (explorer.test.ts). A seed replays with the same scenario.
 */
import { seeded } from "./random.ts"
import { remoteHostUnavailable } from "./remote-host.ts"
import { type Crash, type CrashSignal, type Profile, type RunResult, runScenario, type Target } from "./run.ts"
import { type Scenario, scenarioNamed, SCENARIOS } from "./scenarios.ts"
import type { TracePoint } from "./trace.ts"

export { remoteHostUnavailable } from "./remote-host.ts"
export { SCENARIOS } from "./scenarios.ts"

/** How often the crash is a `kill -9` from outside at a random moment instead of at a crash point. */
const EXTERNAL_SHARE = 0.15

export interface Outcome {
  readonly seed: number
  readonly scenario: string
  readonly crash: Crash
  /** The crash in words: whom, at which point, with which signal. */
  readonly planned: string
  readonly died: TracePoint | undefined
  readonly crashed: boolean
  /** Each a sentence naming what, where, the seed and the crash point. */
  readonly violations: ReadonlyArray<string>
  /** What is amiss but breaks no invariant (files a crash left behind). */
  readonly notes: ReadonlyArray<string>
  readonly ms: number
}

export interface Uninterrupted {
  readonly scenario: string
  readonly result: RunResult
  readonly violations: ReadonlyArray<string>
}

/** A number from a name, so a scenario's crashes are drawn the same way whichever other scenarios run. */
const hash = (text: string) => [...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261)

export const pickScenario = (seed: number, scenarios: ReadonlyArray<Scenario> = SCENARIOS): Scenario => seeded(seed).pick(scenarios)

const stepArgs = (scenario: Scenario, index: number) => {
  const step = scenario.steps[index]
  return step?._tag === "Orch" ? step.args : []
}

/** The crash of `seed` in `scenario`, drawn over what its uninterrupted run passed; undefined when it passed no point. */
export const planCrash = (seed: number, scenario: Scenario, profile: Profile): Crash | undefined => {
  const random = seeded(seed ^ hash(scenario.name))
  const startsSupervisor = scenario.steps.some((step) => step._tag === "Orch" && step.args[0] === "start")
  const commands = scenario.steps.flatMap((step, index): Array<Target> => (step._tag === "Orch" ? [{ _tag: "Step", index }] : []))
  if (random.next() < EXTERNAL_SHARE) {
    const target = random.pick<Target>([...(startsSupervisor ? [{ _tag: "Supervisor" } as const] : []), ...commands])
    const window = target._tag === "Supervisor" ? profile.supervisorMs : profile.stepMs[target.index] ?? 0
    return { _tag: "External", target, delayMs: random.int(0, Math.max(0, Math.round(window))) }
  }
  const candidates: Array<{ readonly target: Target; readonly points: number }> = [
    ...(profile.supervisorPoints > 0 ? [{ target: { _tag: "Supervisor" } as const, points: profile.supervisorPoints }] : []),
    ...commands.flatMap((target) => {
      const points = target._tag === "Step" ? profile.stepPoints[target.index] ?? 0 : 0
      return points > 0 ? [{ target, points }] : []
    })
  ]
  if (candidates.length === 0) return undefined
  const { target, points } = random.pick(candidates)
  const roll = random.next()
  const signal: CrashSignal = roll < 0.7 ? "SIGKILL" : roll < 0.85 ? "SIGTERM" : "SIGINT"
  return { _tag: "Point", target, n: random.int(1, points), signal }
}

const targetName = (scenario: Scenario, target: Target) =>
  target._tag === "Supervisor" ? "the supervisor" : `\`orch ${stepArgs(scenario, target.index).join(" ")}\` (step ${target.index + 1})`

export const describeCrash = (scenario: Scenario, crash: Crash): string =>
  crash._tag === "Point"
    ? `${crash.signal} of ${targetName(scenario, crash.target)} at its crash point ${crash.n}`
    : `kill -9 of ${targetName(scenario, crash.target)} ${crash.delayMs} ms after it started`

const where = (outcome: Pick<Outcome, "died" | "crashed">) =>
  outcome.died !== undefined
    ? `; it died at point ${outcome.died.n} "${outcome.died.label}"`
    : outcome.crashed
    ? "; it died before its first point"
    : "; the crash never came (the point was not reached)"

/** Memoized uninterrupted runs, one per scenario, shared by concurrent jobs. */
export const makeProfiles = () => {
  const runs = new Map<string, Promise<Uninterrupted>>()
  return (scenario: Scenario): Promise<Uninterrupted> => {
    let run = runs.get(scenario.name)
    if (run === undefined) {
      run = runScenario(scenario, undefined).then((result) => ({
        scenario: scenario.name,
        result,
        violations: result.violations.map((v) => `${v} (scenario ${scenario.name}, uninterrupted run)`)
      }))
      runs.set(scenario.name, run)
    }
    return run
  }
}

/**
 * One seed: its scenario (or the one named), its crash, the run, the violations as sentences. Undefined when the
 * scenario cannot run here (host-down without root) or its uninterrupted run passed no crash point.
 */
export const exploreSeed = async (
  seed: number,
  profileOf: (scenario: Scenario) => Promise<Uninterrupted>,
  scenarioName?: string
): Promise<Outcome | undefined> => {
  const scenario = scenarioName === undefined ? pickScenario(seed) : scenarioNamed(scenarioName)
  if (scenario.world.remoteHost === true && remoteHostUnavailable !== undefined) return undefined
  const { result: traced } = await profileOf(scenario)
  const crash = planCrash(seed, scenario, traced.profile)
  if (crash === undefined) return undefined
  const planned = describeCrash(scenario, crash)
  const result = await runScenario(scenario, crash)
  const place = `${planned}${where(result)}`
  return {
    seed,
    scenario: scenario.name,
    crash,
    planned,
    died: result.died,
    crashed: result.crashed,
    violations: result.violations.map((v) => `${v} (seed ${seed}, scenario ${scenario.name}: ${place})`),
    notes: result.notes,
    ms: result.ms
  }
}

export interface ExploreOptions {
  readonly seeds: ReadonlyArray<number>
  readonly scenario?: string
  /** Runs at once (each its own HOME, tmux server, supervisor and emulator). */
  readonly jobs?: number
  readonly onProfile?: (profile: Uninterrupted) => void
  readonly onOutcome?: (outcome: Outcome) => void
  /** Once aborted, no further seed starts; the runs under way finish (and clean up after themselves). */
  readonly signal?: AbortSignal
}

/** Runs every seed, `jobs` at a time; answers the uninterrupted runs it made and every outcome. */
export const explore = async (options: ExploreOptions) => {
  const profiles = makeProfiles()
  const seen = new Set<string>()
  const profileOf = async (scenario: Scenario) => {
    const profile = await profiles(scenario)
    if (!seen.has(scenario.name)) {
      seen.add(scenario.name)
      options.onProfile?.(profile)
    }
    return profile
  }
  const outcomes: Array<Outcome> = []
  const queue = [...options.seeds]
  const worker = async () => {
    for (let seed = queue.shift(); seed !== undefined && options.signal?.aborted !== true; seed = queue.shift()) {
      const outcome = await exploreSeed(seed, profileOf, options.scenario)
      if (outcome === undefined) continue
      outcomes.push(outcome)
      options.onOutcome?.(outcome)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.jobs ?? 1) }, worker))
  const uninterrupted = await Promise.all([...seen].map((name) => profiles(scenarioNamed(name))))
  return { uninterrupted, outcomes }
}
