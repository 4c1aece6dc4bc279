/**
 * The user-level config (`~/.config/orchestrator/config.yaml`, or an existing `~/.orchestrator.yaml`): one file,
 * found from any directory, for all of a user's repositories. `orch init --user` adds a project to it, keeping
 * the file's comments and layout (the `yaml` Document API edits the document rather than rewriting it). Pure.
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path"
import { type Document, isMap, isScalar, type Pair, parseDocument, type YAMLMap } from "yaml"
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
  | { readonly _tag: "Added"; readonly text: string }
  /** The repository is in the file already, under `key`. */
  | { readonly _tag: "AlreadyThere"; readonly key: string }
  /** Why the project cannot go in: a sentence that ends the reason, for "<file> … : <reason>". */
  | { readonly _tag: "Refused"; readonly reason: string }

const keyOf = (pair: Pair): string | undefined => (isScalar(pair.key) ? String(pair.key.value) : undefined)

/**
 * Comments after the last project, past a blank line, belong to the file (commented-out settings further down),
 * though the parser hangs them on the last project: they move to the end of the file, so the new project goes
 * between that project and them, and they keep their column.
 */
const keepTrailingComment = (doc: Document, projects: YAMLMap) => {
  const last = projects.items.at(-1)?.value
  if (!isMap(last) && !isScalar(last)) return
  const comment = last.comment ?? ""
  const blank = comment.indexOf("\n\n")
  if (blank < 0 || !isMap(doc.contents) || doc.contents.items.at(-1)?.value !== projects) return
  last.comment = comment.slice(0, blank)
  doc.comment = [comment.slice(blank + 2), doc.comment].filter((part) => part !== null && part !== "").join("\n")
}

/** Adds `project` under `projects` of the config text `text` (from `file`), or says why it does not. */
export const addProjectToConfigText = (text: string, file: string, project: InitProject, homeDir: string): AddProjectResult => {
  const doc = parseDocument(text)
  if (doc.errors.length > 0) return { _tag: "Refused", reason: `it is not valid YAML (${doc.errors[0]!.message.split("\n")[0]})` }
  const entry = projectEntry(project, tildePath(project.path, homeDir))
  if (doc.contents !== null && !isMap(doc.contents)) return { _tag: "Refused", reason: "it is not a mapping of settings" }
  const projects = doc.contents === null ? undefined : doc.get("projects", true)
  if (projects === undefined || projects === null || (isScalar(projects) && projects.value === null)) {
    doc.set("projects", doc.createNode({ [project.key]: entry }))
    return { _tag: "Added", text: doc.toString() }
  }
  if (!isMap(projects)) return { _tag: "Refused", reason: "its `projects` is not a mapping" }
  const map = projects
  for (const pair of map.items) {
    const key = keyOf(pair)
    const path = isMap(pair.value) ? pair.value.get("path") : undefined
    if (key === undefined || typeof path !== "string") continue
    const expanded = expandHome(path, homeDir)
    const absolute = isAbsolute(expanded) ? expanded : resolve(dirname(file), expanded)
    if (absolute === project.path) return { _tag: "AlreadyThere", key }
    if (key === project.key) return { _tag: "Refused", reason: `it already has a project "${key}", for ${path}` }
    if (basename(absolute) === basename(project.path)) {
      return { _tag: "Refused", reason: `its project "${key}" (${path}) has the same directory name, and two projects may not share one (the project id)` }
    }
  }
  if (map.flow === true) map.flow = false
  keepTrailingComment(doc, map)
  map.add(doc.createPair(project.key, doc.createNode(entry)))
  return { _tag: "Added", text: doc.toString() }
}
