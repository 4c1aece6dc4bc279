/**
 * Coalesced fetches: a spawn does not fetch the default branch again when a fetch of it finished less than
 * FETCH_WINDOW_MS ago, in this process or any other (git's FETCH_HEAD says when, and that it named the branch). A
 * fetch in flight is waited for rather than repeated: fetches run under the project's git lock, so the next spawn
 * gets the lock once it has finished, and finds it fresh.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"

/** How long a fetch of the default branch serves later spawns: a burst (a batch, a queue draining) fetches once. */
export const FETCH_WINDOW_MS = 15_000

/** Whether a fetch that finished at `fetchedAt` still serves a spawn at `now` (a time ahead of the clock does not). */
export const fetchServes = (fetchedAt: number | undefined, now: number, windowMs: number = FETCH_WINDOW_MS): boolean =>
  fetchedAt !== undefined && now >= fetchedAt && now - fetchedAt < windowMs

/**
 * When `branch` was last fetched into the repository at `repo`: FETCH_HEAD's time when it names the branch.
 * Undefined when it cannot tell (no fetch yet, another branch fetched last, a repository whose `.git` is a file).
 */
export const lastFetchOf = (repo: string, branch: string): number | undefined => {
  const file = join(repo, ".git", "FETCH_HEAD")
  try {
    const fetchedAt = statSync(file).mtimeMs
    return readFileSync(file, "utf8").includes(`branch '${branch}' of `) ? fetchedAt : undefined
  } catch {
    return undefined
  }
}

/** Whether the repository's default branch was fetched recently enough that this spawn need not fetch it. */
export const fetchedRecently = (repo: string, branch: string) => Effect.map(Clock.currentTimeMillis, (now) => fetchServes(lastFetchOf(repo, branch), now))
