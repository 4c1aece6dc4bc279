/**
 * The queue's entries as `queue.json` holds them now, read with nothing but `node:fs` (the fast path loads no
 * Effect): only what src/domain/batch-fate.ts reads. No file is an empty queue; one that cannot be read or makes no
 * sense is undefined (the caller then says less, never something untrue).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { EntryLike } from "../domain/batch-fate.ts"
import { isRecord } from "../domain/plain-guards.ts"

export const queueEntriesNow = (root: string): ReadonlyArray<EntryLike> | undefined => {
  let text: string
  try {
    text = readFileSync(join(root, "queue.json"), "utf8")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? [] : undefined
  }
  try {
    const file: unknown = JSON.parse(text)
    if (!isRecord(file) || !Array.isArray(file.entries)) return undefined
    const entries = file.entries.filter(isRecord)
    if (entries.length !== file.entries.length || !entries.every((e) => typeof e.id === "string")) return undefined
    return entries.map((e) => ({ id: String(e.id), ...(typeof e.issue === "string" ? { issue: e.issue } : {}) }))
  } catch {
    return undefined
  }
}
