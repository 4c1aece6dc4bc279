/**
 * The user-level config (`~/.config/orchestrator/config.yaml`, or an existing `~/.orchestrator.yaml`): one file,
 * found from any directory, for all of a user's repositories. `orch init --user` adds a project to it by writing
 * only the new lines, where the `yaml` parser says the projects end: the rest of the file stays byte for byte. Pure.
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path"
import { isMap, isScalar, type Pair, parseDocument, stringify, type YAMLMap } from "yaml"
import { expandHome } from "./host.ts"
import { type InitProject, projectEntry } from "./template.ts"

/** The home-level files of the search order, in order. */
export const userConfigPlaces = (homeDir: string): ReadonlyArray<string> => [
  join(homeDir, ".orchestrator.yaml"),
  join(homeDir, ".orchestrator.yml"),
  join(homeDir, ".config", "orchestrator", "config.yaml"),
  join(homeDir, ".config", "orchestrator", "config.yml")
]

/** The user config to add to: the first home-level file that exists (it is the one loaded), else the XDG one. */
export const userConfigFile = (homeDir: string, exists: (path: string) => boolean): string =>
  userConfigPlaces(homeDir).find(exists) ?? join(homeDir, ".config", "orchestrator", "config.yaml")

/** `/home/me/code/app` → `~/code/app`; other paths unchanged. */
export const tildePath = (path: string, homeDir: string): string =>
  path === homeDir ? "~" : path.startsWith(`${homeDir}/`) ? `~/${path.slice(homeDir.length + 1)}` : path

export type AddProjectResult =
  /** `key`: the key it went under (the repository's directory name, or the next free one when that key is taken). */
  | { readonly _tag: "Added"; readonly text: string; readonly key: string }
  /** The repository is in the file already, under `key`. */
  | { readonly _tag: "AlreadyThere"; readonly key: string }
  /** Why the project cannot go in: a sentence that ends the reason, for "<file> … : <reason>". */
  | { readonly _tag: "Refused"; readonly reason: string }

const keyOf = (pair: Pair): string | undefined => (isScalar(pair.key) ? String(pair.key.value) : undefined)

/** The key under which `projects` has the project at `path` (as the config would expand it), if any. Pure. */
export const projectWithPath = (
  projects: YAMLMap,
  file: string,
  path: string,
  homeDir: string
): { readonly key: string; readonly sameName: undefined } | { readonly key: undefined; readonly sameName?: { key: string; path: string } } => {
  let sameName: { key: string; path: string } | undefined
  for (const pair of projects.items) {
    const key = keyOf(pair)
    const written = isMap(pair.value) ? pair.value.get("path") : undefined
    if (key === undefined || typeof written !== "string") continue
    const expanded = expandHome(written, homeDir)
    const absolute = isAbsolute(expanded) ? expanded : resolve(dirname(file), expanded)
    if (absolute === path) return { key, sameName: undefined }
    if (sameName === undefined && basename(absolute) === basename(path)) sameName = { key, path: written }
  }
  return sameName === undefined ? { key: undefined } : { key: undefined, sameName }
}

/** The key of the project at `path` in the config text `text` (from `file`), if it has one. Pure. */
export const keyOfRepository = (text: string, file: string, path: string, homeDir: string): string | undefined => {
  const doc = parseDocument(text)
  const projects = doc.errors.length > 0 || !isMap(doc.contents) ? undefined : doc.get("projects", true)
  return isMap(projects) ? projectWithPath(projects, file, path, homeDir).key : undefined
}

/** `app`, else `app-2`, `app-3`, … : the first key `projects` does not have. */
const freeKey = (projects: YAMLMap, wanted: string) => {
  const taken = new Set(projects.items.map(keyOf))
  if (!taken.has(wanted)) return wanted
  for (let n = 2;; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`
}

const lineStart = (text: string, offset: number) => text.lastIndexOf("\n", offset - 1) + 1
const columnOf = (text: string, offset: number) => offset - lineStart(text, offset)

/** The entry as block YAML lines, each indented by `indent`, its own keys `step` further. */
const entryLines = (key: string, entry: Record<string, unknown>, indent: number, step: number) =>
  stringify({ [key]: entry }, { indent: step }).trimEnd().split("\n").map((line) => `${" ".repeat(indent)}${line}`)

/**
 * Where a new item goes after the last one of a block map: past its value, and past the comment lines right after it
 * that are indented deeper than the map's keys (they belong to it: `    # sessionPrefix: …`). Comments at the map's
 * level or less, and anything after a blank line, stay where they are, after the new item.
 */
const afterLastItem = (text: string, valueEnd: number, keyColumn: number) => {
  let at = valueEnd
  if (at > 0 && text[at - 1] !== "\n") {
    const end = text.indexOf("\n", at)
    at = end < 0 ? text.length : end + 1
  }
  for (;;) {
    const end = text.indexOf("\n", at)
    const line = text.slice(at, end < 0 ? text.length : end)
    const indent = line.length - line.trimStart().length
    if (!line.trimStart().startsWith("#") || indent <= keyColumn || end < 0) return at
    at = end + 1
  }
}

/**
 * Adds `project` under `projects` of the config text `text` (from `file`), or says why it does not. Only the new lines
 * are written: every other byte of the file stays as the user wrote it (comments, spacing, quoting). A key that is
 * taken by another repository with another directory name gets the next free key (`app-2`); a directory name that is
 * taken cannot be added under any key (it is the project id).
 */
export const addProjectToConfigText = (text: string, file: string, project: InitProject, homeDir: string): AddProjectResult => {
  const doc = parseDocument(text)
  if (doc.errors.length > 0) return { _tag: "Refused", reason: `it is not valid YAML (${doc.errors[0]!.message.split("\n")[0]})` }
  const entry = projectEntry(project, tildePath(project.path, homeDir))
  if (doc.contents !== null && !isMap(doc.contents)) return { _tag: "Refused", reason: "it is not a mapping of settings" }
  const projects = doc.contents === null ? undefined : doc.get("projects", true)
  const withNewline = text === "" || text.endsWith("\n") ? text : `${text}\n`
  if (projects === undefined) {
    return { _tag: "Added", key: project.key, text: `${withNewline}${["projects:", ...entryLines(project.key, entry, 2, 2)].join("\n")}\n` }
  }
  // `projects:` with nothing, `projects: ~`, `projects: {}`: the value is replaced by the block.
  if ((isScalar(projects) && projects.value === null) || (isMap(projects) && projects.items.length === 0)) {
    const [start, end] = (projects as { range?: [number, number, number] }).range ?? [text.length, text.length]
    const keyColumn = columnOf(text, lineStart(text, start) === start ? start : lineStart(text, start))
    const block = entryLines(project.key, entry, keyColumn + 2, 2).join("\n")
    const rest = text.slice(end).replace(/^[ \t]*\n?/, "")
    return { _tag: "Added", key: project.key, text: `${text.slice(0, start).trimEnd()}\n${block}\n${rest}` }
  }
  if (!isMap(projects)) return { _tag: "Refused", reason: "its `projects` is not a mapping" }
  const found = projectWithPath(projects, file, project.path, homeDir)
  if (found.key !== undefined) return { _tag: "AlreadyThere", key: found.key }
  if (found.sameName !== undefined) {
    return {
      _tag: "Refused",
      reason: `its project "${found.sameName.key}" (${found.sameName.path}) has the same directory name, ${basename(project.path)}, ` +
        `and a project's id is its directory name, so two may not share one`
    }
  }
  const key = freeKey(projects, project.key)
  const last = projects.items.at(-1)!
  const keyStart = (last.key as { range?: [number, number, number] } | null)?.range?.[0]
  const valueEnd = (last.value as { range?: [number, number, number] } | null)?.range?.[1]
  if (projects.flow === true || keyStart === undefined || valueEnd === undefined) {
    // A flow mapping (`projects: { a: … }`) has no lines to add to: the document is written again.
    projects.flow = false
    projects.add(doc.createPair(key, doc.createNode(entry)))
    return { _tag: "Added", key, text: doc.toString() }
  }
  const keyColumn = columnOf(text, keyStart)
  const lastValue = last.value
  const firstChild = isMap(lastValue) ? (lastValue.items[0]?.key as { range?: [number, number, number] } | null)?.range?.[0] : undefined
  const step = firstChild !== undefined ? Math.max(1, columnOf(text, firstChild) - keyColumn) : 2
  const at = afterLastItem(withNewline, valueEnd, keyColumn)
  return { _tag: "Added", key, text: `${withNewline.slice(0, at)}${entryLines(key, entry, keyColumn, step).join("\n")}\n${withNewline.slice(at)}` }
}
