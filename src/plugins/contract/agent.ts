/** The agent slot as a plugin module's component sees it: how the agent is started and how its screen reads. */
import * as Schema from "effect/Schema"
import type { Activity } from "../../domain/session.ts"
import type { AgentContext } from "../agent/Agent.ts"
import type { Returned } from "./common.ts"

export type { Activity, AgentContext }

/** What `launch` and `resume` return: a command line, or one with variables and a first message to type in. */
export const AgentLaunchFromPlugin = Schema.Union([
  Schema.String,
  Schema.Struct({
    command: Schema.String,
    env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
    /** Typed into the agent once it is ready, for agents that take their task on their input. */
    initialMessage: Schema.optionalKey(Schema.String)
  })
])
export type AgentLaunchFromPlugin = typeof AgentLaunchFromPlugin.Encoded

export interface AgentComponent {
  readonly name?: string
  /** Prepares the workspace and says how to start the agent on its task. */
  launch(context: AgentContext): Returned<AgentLaunchFromPlugin>
  /** How to start it again in the same workspace. Without it, `launch` is used. */
  resume?(context: AgentContext): Returned<AgentLaunchFromPlugin>
  /** Whether the screen shows the agent waiting at its input. Without it, always. */
  isReadyForInput?(screen: string): boolean
  /** What the agent is doing, read off its screen; undefined when the screen does not tell. */
  activityFromScreen?(screen: string): Activity | undefined
}
