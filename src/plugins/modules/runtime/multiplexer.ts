/**
 * The `multiplexer` runtime as a plugin module (`orch/plugins/runtime/multiplexer`): each session a detached tmux
 * session named after it, on tmux's default socket (honouring TMUX_TMPDIR) or `socket` (else $ORCH_TMUX_SOCKET).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Host } from "../../../config/host.ts"
import { VERSION } from "../../../version.ts"
import { createNow, settingsOf } from "../../components/create.ts"
import { type BuiltinRuntime, runtimeComponent } from "../../components/runtime.ts"
import type { PluginManifest } from "../../contract/common.ts"
import { makeMultiplexer } from "../../runtime/multiplexer.ts"
import { defaultTmuxSocket } from "../../runtime/tmux-socket.ts"

export type { BuiltinRuntime } from "../../components/runtime.ts"

const Settings = Schema.StructWithRest(
  Schema.Struct({
    /** The tmux server socket's path. */
    socket: Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type MultiplexerConfig = typeof Settings.Encoded

export const manifest: PluginManifest<"runtime"> = {
  name: "multiplexer",
  slot: "runtime",
  description: "Runs each agent in a detached tmux session, which outlives orch",
  version: VERSION
}

export const create = (config: MultiplexerConfig = {}): BuiltinRuntime => {
  const { socket } = settingsOf(Settings, manifest.name, config)
  return runtimeComponent(createNow(Effect.flatMap(Host, (host) => makeMultiplexer(socket ?? defaultTmuxSocket(host.env)))))
}
