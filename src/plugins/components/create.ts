/**
 * Making a built-in plugin for a plugin module's `create(config)`: synchronously, so a bad setting throws its
 * tagged error (a real Error: `_tag`, and the message orch prints) right there, not at first use.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "effect/process"
import type * as Schema from "effect/Schema"
import { PluginConfigError } from "../config-error.ts"
import { decodeWith } from "../contract/common.ts"

/** Runs a plugin's constructor now; what it needs to run commands comes from Node. Throws its failure. */
export const createNow = <A, E>(make: Effect.Effect<A, E, ChildProcessSpawner.ChildProcessSpawner>): A =>
  Effect.runSync(Effect.provide(make, NodeServices.layer))

/** `config` (nothing counts as `{}`) decoded with `schema`, or a thrown PluginConfigError naming `plugin` and the key. */
export const settingsOf = <S extends Schema.Decoder<unknown>>(schema: S, plugin: string, config: unknown): S["Type"] =>
  Effect.runSync(Effect.mapError(decodeWith(schema)(config ?? {}), (problem) => new PluginConfigError({ key: plugin, reason: problem })))
