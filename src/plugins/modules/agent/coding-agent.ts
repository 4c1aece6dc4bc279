/**
 * The `coding-agent` agent as a plugin module (`orch/plugins/agent/coding-agent`). `create` takes the project's `agentConfig`
 * (see docs/plugins.md); `launch(context)` and `resume(context)` answer with `{ command, env, initialMessage? }`.
 */
import * as Schema from "effect/Schema"
import { VERSION } from "../../../version.ts"
import { makeCodingAgent } from "../../agent/coding-agent.ts"
import { agentComponent, type BuiltinAgent } from "../../components/agent.ts"
import { settingsOf } from "../../components/create.ts"
import type { PluginManifest } from "../../contract/common.ts"

export type { BuiltinAgent } from "../../components/agent.ts"

export const manifest: PluginManifest<"agent"> = {
  name: "coding-agent",
  slot: "agent",
  description: "Claude Code (`claude`), with hooks that report its activity; resumes its conversation",
  version: VERSION
}

export const create = (agentConfig: Readonly<Record<string, unknown>> = {}): BuiltinAgent =>
  agentComponent(makeCodingAgent(settingsOf(Schema.Record(Schema.String, Schema.Unknown), manifest.name, agentConfig)))
