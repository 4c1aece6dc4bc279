/**
 * Plugin modules, as the spec describes them: a module exporting `manifest` ({ name, slot, description,
 * version }) and `create(config)` returning the component. Loaded from an npm package (resolved from the
 * config file's directory) or a file. Component methods may return a plain value, a Promise or an Effect.
 */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { decodeAnswer, type PluginManifest, type Slot } from "./contract/common.ts"

export { type Slot, SLOTS } from "./contract/common.ts"

export class PluginLoadError extends Schema.TaggedError<PluginLoadError>()("PluginLoadError", {
  module: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `plugin module ${this.module}: ${this.reason}`
  }
}

/** A component method failed (rejected, threw, or its Effect failed). */
export class PluginCallError extends Schema.TaggedError<PluginCallError>()("PluginCallError", {
  plugin: Schema.String,
  method: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `plugin ${this.plugin}: ${this.method} failed: ${this.reason}`
  }
}

export interface ModuleSource {
  readonly package?: string
  readonly path?: string
}

export interface LoadedPlugin {
  readonly manifest: PluginManifest
  readonly component: Record<string, unknown>
}

/**
 * The built CLI runs its command tree as a vm script (src/cli/code-cache.ts), where `import()` does not work once
 * a code cache is used; the loader there hands in Node's own `import` as `__orchImport`.
 */
declare const __orchImport: ((specifier: string) => Promise<Record<string, unknown>>) | undefined
const importModule = (specifier: string): Promise<Record<string, unknown>> => typeof __orchImport === "function" ? __orchImport(specifier) : import(specifier)

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))
/** A module's failure to load in one line: Node's go on with a "Require stack" list that says nothing more to a user. */
const firstLine = (cause: unknown) => describe(cause).split("\n")[0]!

/** Calls a component method and makes its answer an Effect, whatever it returned. */
export const callPlugin = (plugin: string, component: Record<string, unknown>, method: string, ...args: ReadonlyArray<unknown>) =>
  Effect.suspend((): Effect.Effect<unknown, PluginCallError> => {
    const fail = (cause: unknown) => new PluginCallError({ plugin, method, reason: describe(cause) })
    const f = component[method]
    if (typeof f !== "function") return Effect.fail(fail(`the component has no ${method}() method`))
    let result: unknown
    try {
      result = f.apply(component, args)
    } catch (cause) {
      return Effect.fail(fail(cause))
    }
    if (Effect.isEffect(result)) return (result as Effect.Effect<unknown, unknown>).pipe(Effect.mapError(fail))
    if (result !== null && typeof (result as PromiseLike<unknown>)?.then === "function") {
      return Effect.tryPromise({ try: () => result as Promise<unknown>, catch: fail })
    }
    return Effect.succeed(result)
  })

/** Calls a component method and decodes its answer with `schema`: an answer of another shape fails the call. */
export const callPluginDecoded = <S extends Schema.Decoder<unknown>>(
  schema: S,
  plugin: string,
  component: Record<string, unknown>,
  method: string,
  ...args: ReadonlyArray<unknown>
): Effect.Effect<S["Type"], PluginCallError> =>
  callPlugin(plugin, component, method, ...args).pipe(
    Effect.flatMap((value) => Effect.mapError(decodeAnswer(schema)(value), (reason) => new PluginCallError({ plugin, method, reason })))
  )

/**
 * Imports a plugin module and checks its manifest against the slot and name it is used for, without creating it:
 * what the config check does to know a module's name is right.
 */
export const importPlugin = Effect.fn("Plugins.import")(function*(
  source: ModuleSource,
  expected: { readonly slot: Slot; readonly name: string; readonly configFile: string | undefined }
) {
  const where = source.package ?? source.path ?? "?"
  const fail = (reason: string) => new PluginLoadError({ module: where, reason })
  const specifier = yield* Effect.try({
    try: () =>
      source.path !== undefined
        ? pathToFileURL(source.path).href
        : pathToFileURL(createRequire(expected.configFile ?? join(process.cwd(), "orchestrator.yaml")).resolve(source.package!)).href,
    catch: (cause) => fail(`cannot be found (${firstLine(cause)})${source.package ? ` from ${dirname(expected.configFile ?? process.cwd())}` : ""}`)
  })
  const module = yield* Effect.tryPromise({
    try: () => importModule(specifier),
    catch: (cause) => fail(`throws on import: ${firstLine(cause)}`)
  })
  const manifest = (module.manifest ?? (module.default as Record<string, unknown> | undefined)?.manifest) as LoadedPlugin["manifest"] | undefined
  const create = (module.create ?? (module.default as Record<string, unknown> | undefined)?.create) as ((config: unknown) => unknown) | undefined
  if (manifest === undefined || typeof manifest !== "object") return yield* fail("exports no `manifest`")
  if (typeof manifest.name !== "string" || typeof manifest.slot !== "string") return yield* fail("its manifest needs a `name` and a `slot`")
  if (manifest.slot !== expected.slot) {
    return yield* fail(`is a ${manifest.slot} plugin, but the config uses it as the ${expected.slot}`)
  }
  if (manifest.name !== expected.name) {
    return yield* fail(`its manifest is named "${manifest.name}", but the config calls it "${expected.name}"`)
  }
  if (typeof create !== "function") return yield* fail("exports no `create(config)` function")
  return { manifest, create, fail }
})

/** Imports a plugin module, checks its manifest against the slot and name it is used for, and creates it. */
export const loadPlugin = Effect.fn("Plugins.load")(function*(
  source: ModuleSource,
  expected: { readonly slot: Slot; readonly name: string; readonly configFile: string | undefined },
  config: unknown
) {
  const { manifest, create, fail } = yield* importPlugin(source, expected)
  const component = yield* callPlugin(manifest.name, { create }, "create", config).pipe(
    Effect.mapError((error) => fail(`create() failed: ${error.reason}`))
  )
  if (component === null || typeof component !== "object") return yield* fail("create() returned no component")
  return { manifest, component: component as Record<string, unknown> } satisfies LoadedPlugin
})
