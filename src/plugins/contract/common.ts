/**
 * What every plugin module shares: its manifest, the ways a component's method may answer, and reading an
 * answer with a Schema (what a plugin returns is decoded, never trusted).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

export const SLOTS = ["runtime", "agent", "workspace", "tracker", "scm", "notifier"] as const
export type Slot = typeof SLOTS[number]

/** `export const manifest` of a plugin module. `name` is the name a config uses; `slot` the slot it fills. */
export interface PluginManifest<S extends Slot = Slot> {
  readonly name: string
  readonly slot: S
  readonly description: string
  readonly version: string
}

/** A component method may answer with the value, a Promise of it, or an Effect of it. */
export type Returned<A> = A | PromiseLike<A> | Effect.Effect<A, unknown>

/** A plugin module: `manifest` and `create(config)`, which returns the component (or a Promise of it). */
export interface PluginModule<S extends Slot, Config, Component> {
  readonly manifest: PluginManifest<S>
  readonly create: (config: Config) => Component | PromiseLike<Component>
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** One line per problem: `path: message`. */
const describeIssue = (issue: SchemaIssue.Issue): string =>
  formatter(issue).issues.map((i) => {
    const path = (i.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".")
    return path === "" ? i.message : `${path}: ${i.message}`
  }).join("; ")

/** `value` as `schema`'s Type, or what is wrong with it ("title: Expected string, got 3"). */
export const decodeWith = <S extends Schema.Decoder<unknown>>(schema: S) => (value: unknown): Effect.Effect<S["Type"], string> =>
  Schema.decodeUnknownEffect(schema)(value, { errors: "all", reportInput: true }).pipe(
    Effect.mapError((error) => describeIssue(error.issue))
  )

/** A component's answer as `schema`'s Type, or why not ("it returned an unexpected value: title: Expected string, got 3"). */
export const decodeAnswer = <S extends Schema.Decoder<unknown>>(schema: S) => (value: unknown): Effect.Effect<S["Type"], string> =>
  Effect.mapError(decodeWith(schema)(value), (problem) => `it returned an unexpected value: ${problem}`)
