/**
 * The config functions for callers that do not use Effect: each returns a Promise. A failure rejects with the
 * same tagged error the Effect functions fail with: a real `Error` whose `message` is what the CLI prints and
 * whose `_tag` (e.g. `"ConfigNotFoundError"`) says which one it is; `instanceof` works with the exported classes.
 * The working directory, home directory and environment are read at each call.
 */
import * as Effect from "effect/Effect"
import * as Find from "./find.ts"
import * as Load from "./load.ts"
import type { OrchestratorConfig } from "./schema.ts"
import * as Validate from "./validate.ts"

/** Finds, reads, validates and normalizes `orchestrator.yaml` (or the file at `path`). Rejects with a ConfigError. */
export const loadConfig = (path?: string): Promise<OrchestratorConfig> => Effect.runPromise(Load.loadConfig(path))

/** As `loadConfig`, with the absolute path of the file that was loaded. */
export const loadConfigWithPath = (path?: string): Promise<{ readonly config: OrchestratorConfig; readonly path: string }> =>
  Effect.runPromise(Load.loadConfigWithPath(path))

/** The absolute path of the config file `loadConfig()` would load, or null; never rejects. */
export const findConfig = (startDir?: string): Promise<string | null> => Effect.runPromise(Find.findConfig(startDir))

/** `findConfig` by the name agent-orchestrator gives it. */
export const findConfigFile = findConfig

/** Validates and normalizes a config object (as parsed from YAML); paths are relative to the working directory. */
export const validateConfig = (raw: unknown): Promise<OrchestratorConfig> => Effect.runPromise(Validate.validateConfig(raw))

/** Every default, and no projects. */
export const getDefaultConfig = (): Promise<OrchestratorConfig> => Effect.runPromise(Validate.getDefaultConfig())
