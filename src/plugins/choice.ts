/**
 * What a plugin name in the config stands for, decided one way for everyone (the registry that builds a project's
 * plugins, the notifiers, and the config check): a module from the slot's own `package`/`path`, else a module named
 * under `plugins` (which may replace a built-in of the same name), else a built-in; anything else is unknown. Pure:
 * no module is imported here.
 */
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { closest, didYouMean } from "../config/suggest.ts"
import type { ModuleSource, Slot } from "./loader.ts"

/** The built-ins of each slot, by name. */
export const BUILTIN_PLUGINS = {
  runtime: ["multiplexer", "process"],
  agent: ["coding-agent", "codex", "aider", "command"],
  workspace: ["worktree", "clone"],
  tracker: ["repohost", "tracker-b", "none"],
  scm: ["repohost", "none"],
  notifier: ["hosted", "desktop", "chat", "webhook", "email"]
} as const satisfies Record<Slot, ReadonlyArray<string>>

export type BuiltinName<S extends Slot> = typeof BUILTIN_PLUGINS[S][number]

type Path = ReadonlyArray<string | number>

export type PluginChoice =
  | { readonly _tag: "Builtin"; readonly slot: Slot; readonly name: string }
  /** `where` is the config's path of the module's `package`/`path`: the slot's own settings, or `plugins.<name>`. */
  | { readonly _tag: "Module"; readonly slot: Slot; readonly name: string; readonly source: ModuleSource; readonly where: Path }
  | { readonly _tag: "Unknown"; readonly slot: Slot; readonly name: string; readonly modules: ReadonlyArray<string> }

const joinWords = (words: ReadonlyArray<string>) => words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`

/** Built-ins people name by the program they run: `claude` is the agent `coding-agent`, `tmux` the runtime `multiplexer`. */
const BY_PROGRAM: Partial<Record<Slot, Readonly<Record<string, { readonly plugin: string; readonly program: string }>>>> = {
  agent: { claude: { plugin: "coding-agent", program: "claude" }, "claude-code": { plugin: "coding-agent", program: "claude" } },
  runtime: { tmux: { plugin: "multiplexer", program: "tmux" } }
}

const nearest = (slot: Slot, name: string, candidates: ReadonlyArray<string>): string => {
  const hint = didYouMean(name, candidates)
  const programs = BY_PROGRAM[slot]
  if (hint !== "" || programs === undefined) return hint
  const program = closest(name, Object.keys(programs))
  return program === undefined ? "" : ` (did you mean "${programs[program]!.plugin}", which runs ${programs[program]!.program}?)`
}

/** Why a name is unknown, in one sentence: the nearest name when it looks like a typo, and what there is. */
export const unknownPluginMessage = (slot: Slot, name: string, modules: ReadonlyArray<string>, registered: ReadonlyArray<string> = []): string => {
  const builtins = BUILTIN_PLUGINS[slot]
  const others = modules.length > 0 ? `; plugin modules under \`plugins\`: ${joinWords(modules)}` : "; another one is a plugin module, named under `plugins`"
  // A program using orch as a library registers Layers under names (orch/effect): the names it gave count too.
  const own = registered.filter((layer) => !(builtins as ReadonlyArray<string>).includes(layer) && !modules.includes(layer))
  const layers = own.length > 0 ? `; Layers the program registered for it: ${joinWords(own)}` : ""
  return `Unknown ${slot} plugin "${name}"${nearest(slot, name, [...builtins, ...modules, ...own])}: the built-in ones are ${
    joinWords(builtins)
  }${others}${layers}`
}

/** The choice of `name` for `slot`, given the slot's own settings (a tracker's, an scm's, a notifier's) when it has them. */
export const choosePlugin = (
  config: Pick<OrchestratorConfig, "plugins">,
  slot: Slot,
  name: string,
  own?: { readonly settings: ModuleSource; readonly where: Path }
): PluginChoice => {
  const key = (source: ModuleSource) => (source.path !== undefined ? "path" : "package")
  if (own !== undefined && (own.settings.package !== undefined || own.settings.path !== undefined)) {
    return { _tag: "Module", slot, name, source: own.settings, where: [...own.where, key(own.settings)] }
  }
  const module = config.plugins[name]
  if (module !== undefined) return { _tag: "Module", slot, name, source: module, where: ["plugins", name, key(module)] }
  if ((BUILTIN_PLUGINS[slot] as ReadonlyArray<string>).includes(name)) return { _tag: "Builtin", slot, name }
  return { _tag: "Unknown", slot, name, modules: Object.keys(config.plugins) }
}

export type ProjectSlot = "runtime" | "agent" | "workspace" | "tracker" | "scm"
export const PROJECT_SLOTS: ReadonlyArray<ProjectSlot> = ["runtime", "agent", "workspace", "tracker", "scm"]

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * Where the project's choice for `slot` is written: the project's own key, else `defaults.<slot>` when the file sets
 * it there. `raw` is the document as written (undefined: assume the project's key).
 */
export const choicePath = (raw: unknown, project: Pick<ProjectConfig, "key">, slot: ProjectSlot): Path => {
  const own: Path = ["projects", project.key, slot]
  if (slot === "tracker" || slot === "scm" || !isRecord(raw)) return own
  const entry = isRecord(raw.projects) ? raw.projects[project.key] : undefined
  const written = isRecord(entry) && entry[slot] !== undefined
  return !written && isRecord(raw.defaults) && raw.defaults[slot] !== undefined ? ["defaults", slot] : own
}

/** A project's choice for one slot; undefined for an scm it has none of. */
export const projectChoice = (config: Pick<OrchestratorConfig, "plugins">, project: ProjectConfig, slot: ProjectSlot): PluginChoice | undefined => {
  switch (slot) {
    case "tracker":
      return choosePlugin(config, slot, project.tracker.plugin, { settings: project.tracker, where: ["projects", project.key, "tracker"] })
    case "scm":
      return project.scm === undefined
        ? undefined
        : choosePlugin(config, slot, project.scm.plugin, { settings: project.scm, where: ["projects", project.key, "scm"] })
    default:
      return choosePlugin(config, slot, project[slot])
  }
}
