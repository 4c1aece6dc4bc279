/**
 * Sessions for a task written by a person rather than a tracker's issue (`orch spawn <project> --task "…"`):
 * the slug that names its branch (`feat/<slug>`) and stands for its issue id (its title: src/domain/task.ts). Pure.
 */
import { taskTitle } from "../domain/task.ts"

const MAX_WORDS = 6
const MAX_SLUG = 40
/** How many `-<n>` variants are tried before a spawn gives up finding a free branch. */
export const MAX_TASK_BRANCH_TRIES = 100

/**
 * The first words of a task's first line, lowercased and joined by `-`: "Fix the login redirect!" → `fix-the-login-redirect`.
 * Accents are dropped (é → e); a task with no letter or digit at all is `task`; one that is only a number gets a
 * `task-` prefix, so it never reads (or branches) like issue 42.
 */
export const taskSlug = (text: string): string => {
  const words = taskTitle(text).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[a-z0-9]+/g) ?? []
  let slug = ""
  for (const word of words.slice(0, MAX_WORDS)) {
    const next = slug === "" ? word.slice(0, MAX_SLUG) : `${slug}-${word}`
    if (next.length > MAX_SLUG) break
    slug = next
  }
  if (slug === "") return "task"
  return /^\d+$/.test(slug) ? `task-${slug}` : slug
}

/** The branches a task's slug may take, in order: `feat/<slug>`, then `feat/<slug>-2`, `-3`, … */
export const taskBranchCandidates = (slug: string): ReadonlyArray<string> =>
  Array.from({ length: MAX_TASK_BRANCH_TRIES }, (_, i) => (i === 0 ? `feat/${slug}` : `feat/${slug}-${i + 1}`))

/** The first candidate branch nobody has; undefined when every one is taken. */
export const firstFreeBranch = (slug: string, taken: (branch: string) => boolean): string | undefined =>
  taskBranchCandidates(slug).find((branch) => !taken(branch))
