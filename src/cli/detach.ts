/**
 * `orch start --detach`: the supervisor runs in a child process (its output appended to `supervisor.log`), and
 * this process waits for the child's own word on how its start went. The child is told a report file in
 * ORCH_START_REPORT; it writes there what it did (started the orchestrator, found it already running, or why it
 * failed), and this process prints exactly that. A child that dies without a word is reported the moment it
 * dies, with the last line it logged.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { attempt, writeFileAtomic } from "../store/files.ts"
import { supervisorLogPath } from "./logging.ts"

export const REPORT_ENV = "ORCH_START_REPORT"
/** Longer than any start-up (adopting sessions, waiting for the orchestrator agent), short of forever. */
const START_TIMEOUT = Duration.minutes(2)

export const StartOutcome = Schema.Union([
  Schema.TaggedStruct("Ready", {
    project: Schema.String,
    orchestratorSessionId: Schema.String,
    reused: Schema.Boolean,
    dashboardUrl: Schema.String,
    /** The supervisor's pid: the child's own, or the one it found running and joined. */
    pid: Schema.Int,
    /** Whether a supervisor was already running and this start joined it (else this start started it). */
    joined: Schema.Boolean,
    /** What recovery did as this supervisor started (a line each): spawns undone, kills finished, queued starts recovered. */
    recovered: Schema.optionalKey(Schema.Array(Schema.String))
  }),
  Schema.TaggedStruct("Failed", { message: Schema.String, exitCode: Schema.Int })
])
export type StartOutcome = typeof StartOutcome.Type
export type Ready = Extract<StartOutcome, { readonly _tag: "Ready" }>

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(StartOutcome))
const encode = Schema.encodeSync(Schema.fromJsonString(StartOutcome))

/** The detached supervisor did not start. */
export class StartFailed extends Schema.TaggedError<StartFailed>()("StartFailed", { reason: Schema.String, exitCode: Schema.Int }) {
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
  override get message() {
    return this.reason
  }
}

/**
 * In the detached child: where to write its outcome. The variable is taken out of the environment at once, so
 * the agents and tools this process starts do not inherit it.
 */
export const takeReportPath = (): string | undefined => {
  const path = process.env[REPORT_ENV]
  delete process.env[REPORT_ENV]
  return path === undefined || path === "" ? undefined : path
}

export const writeOutcome = (path: string, outcome: StartOutcome) => writeFileAtomic(path, encode(outcome))

const readOutcome = (path: string): StartOutcome | undefined => {
  try {
    const found = decode(readFileSync(path, "utf8"))
    return found._tag === "Some" ? found.value : undefined
  } catch {
    return undefined
  }
}

interface ChildExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** It could not be started at all. */
  readonly error?: Error
}

/** The last line the child wrote to the log (after `offset`), without the `orch: ` its messages start with. */
const lastWords = (log: string, offset: number): string | undefined => {
  try {
    const lines = readFileSync(log).subarray(offset).toString("utf8").split("\n").map((l) => l.trim()).filter((l) => l !== "")
    return lines.at(-1)?.replace(/^orch: /, "")
  } catch {
    return undefined
  }
}

/** What to say of a child that died without writing its outcome. */
export const silentDeath = (exit: ChildExit, words: string | undefined, log: string): string => {
  if (exit.error !== undefined) return `could not start the supervisor: ${exit.error.message}`
  const how = exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${exit.code ?? "unknown"}`
  return words !== undefined
    ? `the supervisor exited during start-up (${how}): ${words}`
    : `the supervisor exited during start-up (${how}) without a word; see ${log}`
}

/** Starts `orch start <project>` in the background and waits for its outcome: Ready, or a StartFailed saying why. */
export const launchDetached = Effect.fn("cli.start.detach")(function*(root: string, cliPath: string, project: string) {
  const log = supervisorLogPath(root)
  const reportPath = join(root, `.start-${randomUUID()}.json`)
  const { child, offset } = yield* attempt(log, () => {
    mkdirSync(root, { recursive: true })
    const offset = statSync(log, { throwIfNoEntry: false })?.size ?? 0
    const fd = openSync(log, "a")
    try {
      const child = spawn(process.execPath, [cliPath, "start", project, "--no-open"], {
        detached: true,
        stdio: ["ignore", fd, fd],
        env: { ...process.env, [REPORT_ENV]: reportPath }
      })
      return { child, offset }
    } finally {
      closeSync(fd)
    }
  })
  child.unref()
  const exited = yield* Deferred.make<ChildExit>()
  child.once("exit", (code, signal) => Deferred.doneUnsafe(exited, Effect.succeed({ code, signal })))
  child.once("error", (error) => Deferred.doneUnsafe(exited, Effect.succeed({ code: null, signal: null, error })))

  const reported = Effect.suspend(() => {
    const outcome = readOutcome(reportPath)
    return outcome === undefined ? Effect.fail("not yet" as const) : Effect.succeed(outcome)
  }).pipe(Effect.retry({ schedule: Schedule.spaced("50 millis") }))
  // The child may write its outcome and exit at once (it joined a supervisor, or failed): the file is read once more.
  const died = Effect.map(
    Deferred.await(exited),
    (exit): StartOutcome => readOutcome(reportPath) ?? { _tag: "Failed", message: silentDeath(exit, lastWords(log, offset), log), exitCode: 1 }
  )
  const outcome = yield* Effect.race(reported, died).pipe(
    Effect.timeoutOrElse({
      duration: START_TIMEOUT,
      orElse: () =>
        Effect.succeed<StartOutcome>({
          _tag: "Failed",
          message: `the supervisor did not finish starting within ${Duration.format(START_TIMEOUT)}; see ${log}`,
          exitCode: 1
        })
    }),
    Effect.ensuring(Effect.sync(() => rmSync(reportPath, { force: true })))
  )
  if (outcome._tag === "Failed") return yield* new StartFailed({ reason: outcome.message, exitCode: outcome.exitCode })
  return outcome
})
