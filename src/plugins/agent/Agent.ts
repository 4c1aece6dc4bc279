/** The agent slot: which coding agent runs in a session, how it is launched, and how to read its state. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../../config/schema.ts"
import type { LimitKind } from "../../domain/rate-limit.ts"
import { Activity } from "../../domain/session.ts"
import type { FileEdit } from "../workspace/file-edits.ts"

export class AgentError extends Schema.TaggedError<AgentError>()("AgentError", {
  plugin: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `agent ${this.plugin}: ${this.reason}`
  }
}

/**
 * The `agentConfig` keys an agent that runs one program reads beyond the common ones (`permissions`, `model`, `env`,
 * `quietMs`): `command`, the program to run instead of its own (a path, or a name on PATH). The config check decodes a
 * project's `agentConfig` with its agent's settings Schema.
 */
export const programSettings = (program: string) =>
  Schema.Struct({
    command: Schema.optionalKey(
      Schema.String.check(Schema.isMinLength(1, { message: `Expected the program to run instead of ${program}: a path, or a name on PATH` }))
    )
  })

export interface AgentContext {
  readonly sessionId: string
  readonly project: ProjectConfig
  readonly issueId: string
  readonly branch: string
  readonly workspacePath: string
  /** The whole prompt (system part and task), as given to agents that read a file. */
  readonly promptFile: string
  /** The system part alone, for agents that take one. */
  readonly systemPromptFile: string
  /** The task: what the agent is asked to do first. */
  readonly task: string
  /** Where hooks append one JSON line per agent event. */
  readonly activityFile: string
  /** An id the agent's own conversation can be resumed by, kept in the session record. */
  readonly conversationId: string
}

export interface AgentLaunch {
  /** Shell command line that starts the agent in the workspace. */
  readonly command: string
  readonly env: Readonly<Record<string, string>>
  /** Typed into the agent once it is ready, for agents that take their task on their input. */
  readonly initialMessage?: string
  /**
   * The files it needs before it starts (hooks, settings, instructions), as edits: the spawn makes them on the
   * machine the session runs on, which may be another host (the context's paths are that machine's).
   */
  readonly files?: ReadonlyArray<FileEdit>
}

/** What a screen shows of the agent's provider turning it away (`AgentShape.limitFromScreen`). */
export interface ScreenLimit {
  /** The line that says so, without the agent's glyphs: what people are shown. */
  readonly line: string
  /** What the line names; undefined when it names neither a limit nor an overload ("API error"). */
  readonly kind?: LimitKind
  /** true while the agent retries by itself (it counts its attempts); false once it gave up (its turn ended on it). */
  readonly retrying: boolean
  /** The wait it shows before its next attempt (ms), when it shows one ("retrying in 35s"). */
  readonly retryInMs?: number
}

export interface AgentShape {
  readonly name: string
  /** The start of the command line that runs the agent: a spawn checks its program is installed before making anything. */
  readonly commandLine?: string
  /** Prepares the workspace (hooks, settings) and says how to start the agent on its task. */
  readonly launch: (context: AgentContext) => Effect.Effect<AgentLaunch, AgentError>
  /** How to start it again in the same workspace, resuming its conversation where the agent can. */
  readonly resume: (context: AgentContext) => Effect.Effect<AgentLaunch, AgentError>
  /** Whether the screen shows the agent waiting at its input, so a message typed now is taken. */
  readonly isReadyForInput: (screen: string) => boolean
  /** Why the agent cannot get to its input by itself (a trust or setup question on screen), when it shows one. */
  readonly startBlocker?: (screen: string) => string | undefined
  /** Whether `activityFromScreen` can tell anything (the supervisor reads screens only for such agents). */
  readonly readsScreen: boolean
  /** Activity read off the screen, when hooks say nothing; undefined when the screen does not tell. */
  readonly activityFromScreen: (screen: string) => Activity | undefined
  /**
   * For a screen read as `rate_limited`: what it shows of the limit. Without it orch takes the last line naming a
   * limit, and counts the agent as having given up.
   */
  readonly limitFromScreen?: (screen: string) => ScreenLimit | undefined
}

/** An agent for tests: it records its launches; its screen tells its state in plain words (see makeTestAgent). */
export interface TestAgent extends AgentShape {
  readonly launches: Array<AgentContext>
  readonly resumes: Array<AgentContext>
}

/**
 * Launches `test-agent <session id>` (a command no runtime but the test runtime runs). Its screen's last line
 * tells its state: `>` is its input prompt; `activity: <activity>` is what it is doing.
 */
export const makeTestAgent = (): TestAgent => {
  const launches: Array<AgentContext> = []
  const resumes: Array<AgentContext> = []
  const lastLine = (screen: string) => screen.trimEnd().split("\n").at(-1)?.trim() ?? ""
  const isActivity = Schema.is(Activity)
  return {
    name: "test",
    launches,
    resumes,
    launch: (context) =>
      Effect.sync(() => {
        launches.push(context)
        return { command: `test-agent ${context.sessionId}`, env: {} }
      }),
    resume: (context) =>
      Effect.sync(() => {
        resumes.push(context)
        return { command: `test-agent ${context.sessionId} --resume`, env: {} }
      }),
    isReadyForInput: (screen) => lastLine(screen) === ">",
    readsScreen: true,
    activityFromScreen: (screen) => {
      const said = /^activity: (\S+)$/.exec(lastLine(screen))?.[1]
      return isActivity(said) ? said : undefined
    }
  }
}

export class Agent extends Context.Service<Agent, AgentShape>()("orch/plugins/Agent") {
  static readonly layerTest = (agent: TestAgent = makeTestAgent()) => Layer.succeed(Agent, agent)
}

/** Quotes a string for /bin/sh. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`
