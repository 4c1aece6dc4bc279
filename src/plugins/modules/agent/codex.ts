/**
 * The `codex` agent as a plugin module (`orch/plugins/agent/codex`). `create` takes the project's `agentConfig`
 * (see docs/plugins.md); `launch(context)` and `resume(context)` answer with `{ command, env, initialMessage? }`.
 */
import * as Schema from "effect/Schema"
import { VERSION } from "../../../version.ts"
import { makeCodexAgent } from "../../agent/codex.ts"
import { agentComponent, type BuiltinAgent } from "../../components/agent.ts"
import { settingsOf } from "../../components/create.ts"
import type { PluginManifest } from "../../contract/common.ts"

export type { BuiltinAgent } from "../../components/agent.ts"

export const manifest: PluginManifest<"agent"> = {
  name: "codex",
  slot: "agent",
  description: "OpenAI Codex CLI (`codex`)",
  version: VERSION
}

export const create = (agentConfig: Readonly<Record<string, unknown>> = {}): BuiltinAgent =>
  agentComponent(makeCodexAgent(settingsOf(Schema.Record(Schema.String, Schema.Unknown), manifest.name, agentConfig)))
