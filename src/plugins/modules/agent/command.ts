/**
 * The `command` agent as a plugin module (`orch/plugins/agent/command`). `create` takes the project's `agentConfig`
 * (see docs/plugins.md); `launch(context)` and `resume(context)` answer with `{ command, env, initialMessage? }`.
 */
import * as Schema from "effect/Schema"
import { VERSION } from "../../../version.ts"
import { makeCommandAgent } from "../../agent/command.ts"
import { agentComponent, type BuiltinAgent } from "../../components/agent.ts"
import { settingsOf } from "../../components/create.ts"
import type { PluginManifest } from "../../contract/common.ts"

export type { BuiltinAgent } from "../../components/agent.ts"

export const manifest: PluginManifest<"agent"> = {
  name: "command",
  slot: "agent",
  description: "Any command line (`command`), run with /bin/sh in the workspace",
  version: VERSION
}

export const create = (agentConfig: Readonly<Record<string, unknown>> = {}): BuiltinAgent =>
  agentComponent(makeCommandAgent(settingsOf(Schema.Record(Schema.String, Schema.Unknown), manifest.name, agentConfig)))
