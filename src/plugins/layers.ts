/**
 * A program's own Layers for the plugin slots (`orch/effect`'s `Orch.layer` takes them): for every project
 * (`replace`), or under a name a config names (`register`: a project's `agent: my-agent` gets the Layer registered
 * as "my-agent"; a notifier whose `plugin` is "pager" the one registered as "pager"). What a config names that is not
 * registered is resolved as always (a plugin module, else a built-in). ProjectPlugins builds a project's Layers with
 * its other plugins, once per project and config, in the same scope; notifiers are built with the router's.
 * A Reference whose default is "none", so every process that is given none (the CLI's commands) builds as before.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { NotifierConfig, OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { Agent } from "./agent/Agent.ts"
import { BUILTIN_PLUGINS, projectChoice, type ProjectSlot } from "./choice.ts"
import type { Notifier } from "./notifier/Notifier.ts"
import type { Runtime } from "./runtime/Runtime.ts"
import type { Scm } from "./scm/Scm.ts"
import type { Tracker } from "./tracker/Tracker.ts"
import type { Workspace } from "./workspace/Workspace.ts"

/** A notifier as the config names it: its name (its key under `notifiers`, or a built-in's) and its settings. */
export interface NotifierEntry {
  readonly name: string
  readonly settings: NotifierConfig
}

/** The services of the slots, by slot. */
export interface SlotServices {
  readonly runtime: Runtime
  readonly agent: Agent
  readonly workspace: Workspace
  readonly tracker: Tracker
  readonly scm: Scm
  readonly notifier: Notifier
}
export type LayerSlot = keyof SlotServices

/** What a slot's Layer may be made for: a project (its config) for the project slots, a notifier's entry for notifiers. */
export type SlotSubject<S extends LayerSlot> = S extends "notifier" ? NotifierEntry : ProjectConfig

/** A slot's Layer: one for everything, or one made for each project (or notifier) from its config. */
export type SlotLayer<S extends LayerSlot, R = never> =
  | Layer.Layer<SlotServices[S], unknown, R>
  | ((subject: SlotSubject<S>) => Layer.Layer<SlotServices[S], unknown, R>)

export type SlotLayers<R = never> = {
  readonly [S in LayerSlot]?: SlotLayer<S, R>
}
export type RegisteredLayers<R = never> = {
  readonly [S in LayerSlot]?: Readonly<Record<string, SlotLayer<S, R>>>
}

/** A program's Layers: `replace` for every project (every notifier), `register` under the names a config uses. */
export interface PluginLayersSpec<R = never> {
  readonly replace?: SlotLayers<R>
  readonly register?: RegisteredLayers<R>
}

/** The Layers in force, with nothing left to provide. */
export interface PluginLayersShape {
  readonly replace: SlotLayers
  readonly register: RegisteredLayers
  /** Where notifiers' Layers are built: they live until it closes (the composition's scope). */
  readonly scope?: Scope.Scope
}

export const NO_PLUGIN_LAYERS: PluginLayersShape = { replace: {}, register: {} }

export const PluginLayers = Context.Reference<PluginLayersShape>("orch/plugins/PluginLayers", { defaultValue: () => NO_PLUGIN_LAYERS })

/** Whether the program gives `slot` a Layer where the config names `name` (replaced, or registered as `name`). */
export const hasLayer = (layers: PluginLayersShape, slot: LayerSlot, name: string): boolean =>
  layers.replace[slot] !== undefined || Object.hasOwn(layers.register[slot] ?? {}, name)

/** The program's Layer for `slot` where the config names `name`, made for `subject`: its replacement, else the one registered as `name`. */
export const slotLayerFor = <S extends LayerSlot>(
  layers: PluginLayersShape,
  slot: S,
  name: string,
  subject: SlotSubject<S>
): { readonly layer: Layer.Layer<SlotServices[S], unknown>; readonly registeredAs?: string } | undefined => {
  if (!hasLayer(layers, slot, name)) return undefined
  const replacement = layers.replace[slot] as SlotLayer<S> | undefined
  const chosen = replacement ?? (layers.register[slot]![name] as SlotLayer<S>)
  const layer = typeof chosen === "function" ? chosen(subject) : chosen
  return replacement !== undefined ? { layer } : { layer, registeredAs: name }
}

/** Where a slot's Layer came from, for what is said when it cannot be built. */
export const layerOrigin = (slot: LayerSlot, registeredAs: string | undefined): string =>
  registeredAs === undefined
    ? `the ${slot} Layer given for every ${slot === "notifier" ? "notifier" : "project"}`
    : `the ${slot} Layer registered as "${registeredAs}"`

/** What a Layer's failure says, in one line. */
export const failureReason = (error: unknown): string => {
  const message = typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" ? error.message : String(error)
  return message.split("\n")[0] || "it failed without saying why"
}

/** Closes every Layer of `spec` over `context` (the platform services a program's Layers may use). */
export const closeLayers = <R>(spec: PluginLayersSpec<R>, context: Context.Context<R>, scope?: Scope.Scope): PluginLayersShape => {
  const close = <S extends LayerSlot>(layer: SlotLayer<S, R>): SlotLayer<S> =>
    typeof layer === "function"
      ? (subject: SlotSubject<S>) => Layer.provide(layer(subject), Layer.succeedContext(context))
      : Layer.provide(layer, Layer.succeedContext(context))
  const replace: Record<string, unknown> = {}
  for (const [slot, layer] of Object.entries(spec.replace ?? {})) replace[slot] = close(layer as SlotLayer<LayerSlot, R>)
  const register: Record<string, Record<string, unknown>> = {}
  for (const [slot, named] of Object.entries(spec.register ?? {})) {
    register[slot] = Object.fromEntries(Object.entries(named ?? {}).map(([name, layer]) => [name, close(layer as SlotLayer<LayerSlot, R>)]))
  }
  return { replace: replace as SlotLayers, register: register as RegisteredLayers, ...(scope !== undefined ? { scope } : {}) }
}

/** Builds a slot's Layer in the current scope and answers its service. */
export const buildSlot = <S extends LayerSlot>(
  layer: Layer.Layer<SlotServices[S], unknown>,
  service: Context.Key<SlotServices[S], SlotServices[S]["Service"]>,
  slot: S
): Effect.Effect<SlotServices[S]["Service"], unknown, Scope.Scope> =>
  Effect.flatMap(Layer.build(layer).pipe(asFailure), (context) => fitsShape(slot, Context.get(context, service)))

/**
 * A Layer's defect (a service it needs that nobody provides, which plain JavaScript does not catch at compile time) is
 * its failure to build, said as the others are.
 */
export const asFailure = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, unknown, R> => Effect.catchDefect(effect, (defect) => Effect.fail(defect))

/** `built`, when it has what the slot's Shape must; else a failure that says what it lacks. */
export const fitsShape = <A>(slot: LayerSlot, built: A): Effect.Effect<A, Error> => {
  const wrong = shapeProblems(slot, built)
  return wrong.length === 0 ? Effect.succeed(built) : Effect.fail(new Error(`what it gives is not ${article(slot)} ${slot}: ${wrong.join(", ")}`))
}

/** What each slot's Shape must have, by kind: a program in plain JavaScript is not checked by the compiler. */
const SHAPES: Record<LayerSlot, Record<string, "string" | "function" | "boolean">> = {
  runtime: { name: "string", create: "function", send: "function", capture: "function", probe: "function", destroy: "function" },
  agent: { name: "string", launch: "function", resume: "function", isReadyForInput: "function", readsScreen: "boolean", activityFromScreen: "function" },
  workspace: {
    name: "string",
    create: "function",
    exists: "function",
    hasBranch: "function",
    unsavedWork: "function",
    rescue: "function",
    destroy: "function"
  },
  tracker: { name: "string", getIssue: "function" },
  scm: { name: "string", observe: "function", merge: "function" },
  notifier: { name: "string", notify: "function" }
}

const article = (word: string) => (/^[aeiou]/.test(word) ? "an" : "a")

/** The members of a slot's service that are missing or of the wrong kind (`launch` is not a function, …); none when it fits. Pure. */
export const shapeProblems = (slot: LayerSlot, service: unknown): Array<string> =>
  Object.entries(SHAPES[slot]).flatMap(([member, kind]) => {
    const value = typeof service === "object" && service !== null ? (service as Record<string, unknown>)[member] : undefined
    if (value === undefined) return [`no \`${member}\``]
    return typeof value === kind
      ? []
      : [
        `\`${member}\` is ${typeof value === "object" ? (value === null ? "null" : "an object") : `${article(typeof value)} ${typeof value}`}, not ${
          article(kind)
        } ${kind}`
      ]
  })

/**
 * Layers a program registered under a name no project (no notifier) of `config` uses, one line each: a typo, or a
 * config not changed yet. Names that are built-ins or plugin modules are overrides and not said. Pure.
 */
export const unusedRegistrations = <R>(config: Pick<OrchestratorConfig, "plugins" | "projects" | "notifiers">, spec: PluginLayersSpec<R>): Array<string> =>
  Object.entries(spec.register ?? {}).flatMap(([slot, named]) => {
    const used = new Set(
      slot === "notifier"
        ? Object.values(config.notifiers ?? {}).map((entry) => entry.plugin)
        : Object.values(config.projects).flatMap((project) => projectChoice(config, project, slot as ProjectSlot)?.name ?? [])
    )
    const known = [...(BUILTIN_PLUGINS[slot as LayerSlot] as ReadonlyArray<string>), ...Object.keys(config.plugins)]
    return Object.keys(named ?? {}).filter((name) => !used.has(name) && !known.includes(name)).map((name) =>
      `the ${slot} Layer registered as "${name}" is used by no ${slot === "notifier" ? "notifier" : "project"} of the config${
        used.size > 0 ? ` (they use ${[...used].join(", ")})` : ""
      }: name it in the config (\`${slot === "notifier" ? "plugin" : slot}: ${name}\`) for it to be used`
    )
  })
