/**
 * A test's agent, driven by the test: it shows a screen (in the in-memory runtime's terminal), says what it is doing
 * the ways real agents do (a hook's line or an `orch report` line in its session's activity file), and exits. Its
 * steps may be a script, each after its wait on the Clock (the TestClock in a test).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { appendFileSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { type ReportedState, reportLine } from "../domain/activity.ts"
import { RuntimeError, type TestRuntime } from "../plugins/runtime/Runtime.ts"

/** One thing the agent does, `after` a wait (none: at once). */
export type AgentStep =
  & { readonly after?: Duration.Input }
  & (
    | { readonly show: string }
    | { readonly report: ReportedState; readonly note?: string }
    | { readonly hook: string; readonly payload?: unknown }
    | { readonly exit: number }
  )

export interface ScriptedAgent {
  readonly sessionId: string
  /**
   * The agent prints `text`. The test agent reads its screen's last line: `activity: <activity>` is what it is doing,
   * `>` its input prompt.
   */
  readonly show: (text: string) => Effect.Effect<void, RuntimeError>
  /** The agent states its activity as `orch report` does: a line of its activity file. */
  readonly report: (state: ReportedState, note?: string) => Effect.Effect<void, RuntimeError>
  /** One of its hooks fires (an event of Claude Code's, such as `UserPromptSubmit` or `Stop`): a line of its activity file. */
  readonly hook: (event: string, payload?: unknown) => Effect.Effect<void, RuntimeError>
  /** The agent exits with `code`; its terminal stays, as a dead tmux pane does. */
  readonly exit: (code: number) => Effect.Effect<void, RuntimeError>
  /** Does `steps` in order, each after its wait. */
  readonly run: (steps: ReadonlyArray<AgentStep>) => Effect.Effect<void, RuntimeError>
  /** What the agent was sent so far (messages of send-to-agent reactions, `send`), oldest first. */
  readonly sent: Effect.Effect<ReadonlyArray<string>>
  /** Everything its terminal shows. */
  readonly screen: Effect.Effect<string>
}

/** The agent of session `sessionId`, in `runtime`'s terminal, writing to the activity file `activityFile` answers. */
export const scriptedAgent = (runtime: TestRuntime, sessionId: string, activityFile: Effect.Effect<string, RuntimeError>): ScriptedAgent => {
  const append = (operation: string, line: (now: number) => string) =>
    Effect.flatMap(Effect.all([activityFile, Clock.currentTimeMillis]), ([file, now]) =>
      Effect.try({
        try: () => {
          mkdirSync(dirname(file), { recursive: true })
          appendFileSync(file, `${line(now)}\n`)
        },
        catch: (cause) => new RuntimeError({ plugin: "test", operation, reason: cause instanceof Error ? cause.message : String(cause) })
      }))
  const show = (text: string) => runtime.print(sessionId, text)
  const report = (state: ReportedState, note?: string) => append("report", (now) => reportLine(state, now, note))
  const hook = (event: string, payload?: unknown) =>
    append("hook", (now) => JSON.stringify({ ts: new Date(now).toISOString(), event, ...(payload !== undefined ? { payload } : {}) }))
  const exit = (code: number) => runtime.exit(sessionId, code)
  const step = (next: AgentStep): Effect.Effect<void, RuntimeError> => {
    const act = "show" in next
      ? show(next.show)
      : "report" in next
      ? report(next.report, next.note)
      : "hook" in next
      ? hook(next.hook, next.payload)
      : exit(next.exit)
    return next.after === undefined ? act : Effect.andThen(Effect.sleep(Duration.fromInputUnsafe(next.after)), act)
  }
  const terminal = Effect.sync(() => runtime.terminals.get(sessionId))
  return {
    sessionId,
    show,
    report,
    hook,
    exit,
    run: (steps) => Effect.forEach(steps, step, { discard: true }),
    sent: Effect.map(terminal, (found) => [...(found?.sent ?? [])]),
    screen: Effect.map(terminal, (found) => found?.screen ?? "")
  }
}
