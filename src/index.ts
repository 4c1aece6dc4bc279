/**
 * orch as a library (the package root), for any JavaScript: the config functions as Promises, the config's
 * Schemas and its errors. `orch/effect` has the same functions as Effects; `orch/plugins` has the plugin
 * slots' types; `orch/plugins/<slot>/<name>` is each built-in plugin as a plugin module.
 */
export { DEFAULT_NOTIFICATION_ROUTING, DEFAULT_REACTIONS } from "./config/defaults.ts"
export * from "./config/errors.ts"
export { renderConfigJsonSchema } from "./config/json-schema.ts"
export { projectReactions } from "./config/normalize.ts"
export { findConfig, findConfigFile, getDefaultConfig, loadConfig, loadConfigWithPath, validateConfig } from "./config/promise.ts"
export * from "./config/schema.ts"
export { generateSessionPrefix } from "./config/session-prefix.ts"
export { type Emulator, type EmulatorOptions, startEmulator } from "./demo/emulator/server.ts"
export { makeRepohostScm } from "./plugins/scm/repohost.ts"
