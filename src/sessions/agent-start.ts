/**
 * An agent's start, as spawn, restore and the orchestrator's session look at it: its program is there, it is told
 * about its session, it shows it is ready (or stays up), and, when it ended instead, what it printed last.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { redactText } from "../config/redact.ts"
import type { ProjectConfig } from "../config/schema.ts"
import type { RuntimeHandle, SessionRecord } from "../domain/session.ts"
import type { AgentContext, AgentShape } from "../plugins/agent/Agent.ts"
import type { Liveness, RuntimeShape } from "../plugins/runtime/Runtime.ts"
import { findProgram, programOf } from "../process/program.ts"
import type { StorePaths } from "../store/paths.ts"

/** An agent may be up at once: the first looks for its ready signal come 10, 20, 40, 80 ms apart, then every 100 ms. */
const readyPollDelay = (poll: number) => Math.min(10 * 2 ** poll, 100)
const READY_WAIT_MS = 60_000
/** How long an agent with no ready signal must stay up before its spawn is reported. */
export const START_WATCH = Duration.millis(150)

/** The last lines an agent printed, for a report: blank lines and tmux's own "Pane is dead" line left out. */
export const lastPrintedLines = (screen: string, count = 5): ReadonlyArray<string> =>
  screen.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "" && !/^Pane is dead\b/.test(line)).slice(-count)

const howEnded = (liveness: Liveness) =>
  liveness._tag === "Gone"
    ? "its terminal session disappeared"
    : `the agent exited${
      liveness._tag === "Exited" && liveness.signal !== undefined
        ? ` on signal ${liveness.signal}`
        : liveness._tag === "Exited" && liveness.exitCode !== undefined
        ? ` with status ${liveness.exitCode}`
        : ""
    }`

const EMPTY_SCREEN_RETRY = "100 millis"
const EMPTY_SCREEN_RETRIES = 5

/** Why a start failed: how the agent ended and, quoted, what it printed last (the reason it gave, if any). */
export const agentEndedReason = (liveness: Liveness, printed: ReadonlyArray<string>, when: string): string => {
  const how = howEnded(liveness)
  return printed.length === 0 ? `${how} ${when}, printing nothing` : `${how} ${when}; it printed:\n${printed.map((line) => `  > ${line}`).join("\n")}`
}

/** How long an exit note may be: one line a person reads at a glance. */
const EXIT_NOTE_MAX = 240

/**
 * What an agent found ended printed last, as one line: its last lines (up to 3) joined by " / ", secrets hidden
 * (`known`: values to hide wherever they appear), cut to 240 characters; undefined when it printed nothing. Pure.
 */
export const exitNote = (printed: ReadonlyArray<string>, known: ReadonlyArray<string> = []): string | undefined => {
  const line = redactText(printed.slice(-3).map((l) => l.trim().replace(/\s+/g, " ")).join(" / "), known)
  if (line === "") return undefined
  return line.length <= EXIT_NOTE_MAX ? line : `${line.slice(0, EXIT_NOTE_MAX - 1)}…`
}

/** The exit note of an agent found ended after its start, read off its screen; none when it cannot be read. */
export const readExitNote = (runtime: RuntimeShape, handle: RuntimeHandle, known: ReadonlyArray<string>) =>
  runtime.capture(handle, 200).pipe(
    Effect.map((screen) => exitNote(lastPrintedLines(screen), known)),
    Effect.catch(() => Effect.succeed(undefined))
  )

/** The reason an agent that is no longer alive gave, read off its screen (a pane that died keeps it). */
export const endedReason = (runtime: RuntimeShape, handle: RuntimeHandle, liveness: Liveness, when: string) =>
  runtime.capture(handle, 200).pipe(
    Effect.map(lastPrintedLines),
    // tmux may mark a pane dead (its SIGCHLD) before it has read the last output from the pty: an empty screen is
    // read again a few times before the agent is said to have printed nothing.
    Effect.repeat({ while: (printed) => printed.length === 0, schedule: Schedule.spaced(EMPTY_SCREEN_RETRY), times: EMPTY_SCREEN_RETRIES }),
    Effect.map((printed) => agentEndedReason(liveness, printed, when)),
    Effect.catch((error) => Effect.succeed(`${howEnded(liveness)} ${when}; its screen could not be read: ${error.message}`))
  )

/** Waits until the agent shows it is ready for input (60 s at most); fails if it exits or asks a setup question first. */
export const waitUntilReady = Effect.fnUntraced(
  function*(runtime: RuntimeShape, agent: Pick<AgentShape, "isReadyForInput" | "startBlocker">, handle: RuntimeHandle) {
    for (let poll = 0, waited = 0; waited < READY_WAIT_MS; poll++) {
      const screen = yield* runtime.capture(handle)
      if (agent.isReadyForInput(screen)) return
      const blocker = agent.startBlocker?.(screen)
      if (blocker !== undefined) return yield* Effect.fail(blocker)
      const liveness = (yield* runtime.probe([handle])).get(handle.id) ?? { _tag: "Gone" }
      if (liveness._tag !== "Alive") return yield* Effect.fail(yield* endedReason(runtime, handle, liveness, "before it was ready"))
      yield* Effect.sleep(readyPollDelay(poll))
      waited += readyPollDelay(poll)
    }
    return yield* Effect.fail("the agent did not show its input prompt within 60 s")
  }
)

/**
 * For an agent with no ready signal of its own: looks again once its first moments are over, so one that exits at
 * once (a bad flag, a missing file) fails the spawn with what it printed instead of being reported as running.
 */
export const watchStart = Effect.fnUntraced(function*(runtime: RuntimeShape, handle: RuntimeHandle) {
  yield* Effect.sleep(START_WATCH)
  if (runtime.running !== undefined && (yield* runtime.running(handle))) return
  const liveness = (yield* runtime.probe([handle])).get(handle.id) ?? { _tag: "Gone" }
  if (liveness._tag !== "Alive") return yield* Effect.fail(yield* endedReason(runtime, handle, liveness, "as it started"))
})

/** Fails when the agent's program is not installed, before a spawn or restore makes anything. */
export const checkAgentProgram = (agent: Pick<AgentShape, "commandLine">, project: ProjectConfig): Effect.Effect<void, string> => {
  const found = findProgram(programOf(agent.commandLine ?? ""), project.agentConfig.env?.PATH ?? process.env.PATH)
  return found._tag === "Missing"
    ? Effect.fail(
      `${found.program} is ${
        found.reason === "not found on PATH" ? "not installed (not found on PATH)" : `not there (${found.reason})`
      }; install it, or set agentConfig.command to its full path`
    )
    : Effect.void
}

/** Everything an agent is told about its session, for launching it and for resuming it later. */
export const agentContext = (
  store: { readonly paths: StorePaths },
  project: ProjectConfig,
  record: SessionRecord,
  task: string
): AgentContext => ({
  sessionId: record.sessionId,
  project,
  issueId: record.issueId,
  branch: record.branch,
  workspacePath: record.workspacePath,
  promptFile: store.paths.prompt(project.id, record.sessionId),
  systemPromptFile: store.paths.systemPrompt(project.id, record.sessionId),
  task,
  activityFile: store.paths.activity(project.id, record.sessionId),
  conversationId: record.agent.conversationId ?? record.sessionId
})
