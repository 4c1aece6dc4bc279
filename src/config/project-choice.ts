/**
 * Which project a command means: the one named, by its key in the config or its id; with none named, the config's
 * only project. Several projects and none named, or none at all, is no choice. Pure.
 */

export type ProjectChoice<P> =
  | { readonly _tag: "Chosen"; readonly key: string; readonly project: P }
  /** A name was given that is no project's key or id. */
  | { readonly _tag: "Unknown"; readonly ref: string }
  /** No name was given, and the config does not have exactly one project. */
  | { readonly _tag: "NotGiven"; readonly count: number }

export const chooseProject = <P extends { readonly id: string }>(
  projects: Readonly<Record<string, P>>,
  ref: string | undefined
): ProjectChoice<P> => {
  const entries = Object.entries(projects)
  if (ref === undefined) {
    const [only] = entries
    return entries.length === 1 && only !== undefined ? { _tag: "Chosen", key: only[0], project: only[1] } : { _tag: "NotGiven", count: entries.length }
  }
  const found = projects[ref] !== undefined ? [ref, projects[ref]] as const : entries.find(([, p]) => p.id === ref)
  return found === undefined ? { _tag: "Unknown", ref } : { _tag: "Chosen", key: found[0], project: found[1] }
}
