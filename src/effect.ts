/**
 * orch as an Effect library (`orch/effect`): the config functions as Effects (they read the `Host` Reference,
 * which a program may provide), with the Schemas and errors. The package root has the same functions as Promises.
 */
export { DEFAULT_NOTIFICATION_ROUTING, DEFAULT_REACTIONS } from "./config/defaults.ts"
export * from "./config/errors.ts"
export { findConfig } from "./config/find.ts"
export { Host, type HostShape } from "./config/host.ts"
export { renderConfigJsonSchema } from "./config/json-schema.ts"
export { loadConfig, loadConfigWithPath } from "./config/load.ts"
export { projectReactions } from "./config/normalize.ts"
export * from "./config/schema.ts"
export { generateSessionPrefix } from "./config/session-prefix.ts"
export { getDefaultConfig, validateConfig } from "./config/validate.ts"
