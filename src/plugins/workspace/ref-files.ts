/**
 * Which refs a repository has, read from its ref files the way git reads them (a loose file under `.git/`, else a
 * line of `packed-refs`), so a spawn's branch look forks no `git` (~7–10 ms from the supervisor, inside the
 * repository's lock). Loose first, then packed: `git pack-refs` writes packed-refs before it deletes the loose files,
 * so a ref being packed is found either way. Undefined whenever the files cannot answer for certain (no `.git`
 * directory, the reftable backend, a symbolic or unreadable ref): the caller asks git then.
 */
import { lstatSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?\n?$/

type Loose = "found" | "absent" | "unknown"

const looseRef = (gitDir: string, ref: string): Loose => {
  try {
    return OBJECT_ID.test(readFileSync(join(gitDir, ref), "latin1")) ? "found" : "unknown"
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A directory where the ref would be (refs/heads/feat for feat/1) or a file on its path is no ref.
    return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" ? "absent" : "unknown"
  }
}

const packedRefs = (gitDir: string): ReadonlySet<string> | undefined => {
  let text: string
  try {
    text = readFileSync(join(gitDir, "packed-refs"), "latin1")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? new Set() : undefined
  }
  const names = new Set<string>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("^")) continue
    const space = line.indexOf(" ")
    if (space < 0 || !OBJECT_ID.test(line.slice(0, space))) return undefined
    names.add(line.slice(space + 1))
  }
  return names
}

/** The refs among `refs` that `repo` has, or undefined when its files cannot tell for certain. */
export const refsFromFiles = (repo: string, refs: ReadonlyArray<string>): ReadonlySet<string> | undefined => {
  const gitDir = join(repo, ".git")
  if (lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() !== true) return undefined
  if (statSync(join(gitDir, "reftable"), { throwIfNoEntry: false }) !== undefined) return undefined
  const found = new Set<string>()
  let packed: ReadonlySet<string> | undefined
  for (const ref of refs) {
    const loose = looseRef(gitDir, ref)
    if (loose === "unknown") return undefined
    if (loose === "found") {
      found.add(ref)
      continue
    }
    packed ??= packedRefs(gitDir)
    if (packed === undefined) return undefined
    if (packed.has(ref)) found.add(ref)
  }
  return found
}
