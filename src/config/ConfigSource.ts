/**
 * The configuration in force. The supervisor starts on the config it loaded and puts a new one in force when
 * its file changes (actors/config-reload.ts); everything that decides by the config reads it here at each use,
 * so a reload takes effect at the next decision without rebuilding anything. A CLI command that runs the
 * procedures in-process has one that never changes.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { OrchestratorConfig } from "./schema.ts"

export interface ConfigSourceShape {
  /** The config in force: read it once per decision (a procedure, an observation), never keep it. */
  readonly current: Effect.Effect<OrchestratorConfig>
  /** Puts `config` in force: for the supervisor's reload, once everything the new config needs is built. */
  readonly replace: (config: OrchestratorConfig) => Effect.Effect<void>
}

export class ConfigSource extends Context.Service<ConfigSource, ConfigSourceShape>()("orch/config/ConfigSource") {
  static readonly make = (initial: OrchestratorConfig) =>
    Effect.map(Ref.make(initial), (ref) => ConfigSource.of({ current: Ref.get(ref), replace: (config) => Ref.set(ref, config) }))

  /** Starts on `initial`. */
  static readonly layer = (initial: OrchestratorConfig) => Layer.effect(ConfigSource, ConfigSource.make(initial))
}
