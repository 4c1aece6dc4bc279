/**
 * The `aider` agent as a plugin module (`orch/plugins/agent/aider`). `create` takes the project's `agentConfig`
 * (see docs/plugins.md); `launch(context)` and `resume(context)` answer with `{ command, env, initialMessage? }`.
 */
import * as Schema from "effect/Schema"
import { VERSION } from "../../../version.ts"
import { makeAiderAgent } from "../../agent/aider.ts"
import { agentComponent, type BuiltinAgent } from "../../components/agent.ts"
import { settingsOf } from "../../components/create.ts"
import type { PluginManifest } from "../../contract/common.ts"

export type { BuiltinAgent } from "../../components/agent.ts"

export const manifest: PluginManifest<"agent"> = {
  name: "aider",
  slot: "agent",
  description: "Aider (`aider`)",
  version: VERSION
}

export const create = (agentConfig: Readonly<Record<string, unknown>> = {}): BuiltinAgent =>
  agentComponent(makeAiderAgent(settingsOf(Schema.Record(Schema.String, Schema.Unknown), manifest.name, agentConfig)))
