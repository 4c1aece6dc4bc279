/**
 * A lock shared by every orch process on the machine: a directory holding an `owner` file (the owner's pid and,
 * where the system tells it, the process's start time). It is made whole in a private directory and renamed into
 * place, so a lock never exists without its owner (rename is atomic). A lock whose owner died (or is a zombie, or
 * whose pid now belongs to another process) is broken and taken over, so a `kill -9` never leaves it stuck; the
 * breaking itself is done under a second, short-lived lock, so two processes that both saw the dead owner cannot
 * remove each other's fresh lock.
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import type { StoreError } from "./errors.ts"
import { attempt } from "./files.ts"
import { isProcessAlive, parseOwner, thisProcess } from "./process-liveness.ts"

export { isProcessAlive } from "./process-liveness.ts"

export class LockTimeout extends Schema.TaggedError<LockTimeout>()("LockTimeout", {
  name: Schema.String,
  holder: Schema.String
}) {
  override get message() {
    return `waited too long for the ${this.name} lock (held by process ${this.holder})`
  }
}

/** A breaker that has held the break lock this long died while breaking (it takes microseconds). */
const BREAKER_STALE_MS = 10_000

export { parseOwner } from "./process-liveness.ts"

let counter = 0

const readOwner = (dir: string): string | undefined => {
  try {
    return readFileSync(join(dir, "owner"), "utf8")
  } catch {
    return undefined
  }
}

/**
 * Takes the lock at `dir` out of place in one step (rename), then deletes it: a lock is never an empty directory
 * at its place, which another process's rename would take for a half-made one and replace.
 */
const discard = (dir: string) => {
  const gone = join(dirname(dir), `.${basename(dir)}.${process.pid}.${counter++}.gone`)
  try {
    renameSync(dir, gone)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return
    throw error
  }
  rmSync(gone, { recursive: true, force: true })
}

/** Removes the lock at `dir` if it still names `seen` (a dead owner), holding the break lock while it looks. */
const breakStale = (dir: string, seen: string, nowMs: number) => {
  const breaker = `${dir}.break`
  try {
    mkdirSync(breaker)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    const since = statSync(breaker, { throwIfNoEntry: false })?.mtimeMs
    if (since !== undefined && nowMs - since > BREAKER_STALE_MS) rmSync(breaker, { recursive: true, force: true })
    return
  }
  try {
    if (readOwner(dir) === seen) discard(dir)
  } finally {
    rmSync(breaker, { recursive: true, force: true })
  }
}

/** One attempt: "acquired", or who holds the lock (a pid, or "?"). */
const tryAcquire = (dir: string, owner: string, nowMs: number): "acquired" | string => {
  mkdirSync(dirname(dir), { recursive: true })
  const mine = join(dirname(dir), `.${basename(dir)}.${process.pid}.${counter++}.tmp`)
  mkdirSync(mine)
  writeFileSync(join(mine, "owner"), owner)
  try {
    // Replaces nothing but an empty directory (one a crashed process of an older orch left half-made).
    renameSync(mine, dir)
    return "acquired"
  } catch (error) {
    rmSync(mine, { recursive: true, force: true })
    const code = (error as NodeJS.ErrnoException).code
    if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error
  }
  const seen = readOwner(dir)
  const holder = seen === undefined ? undefined : parseOwner(seen)
  if (seen !== undefined && holder !== undefined && !isProcessAlive(holder.pid, holder.startTime)) {
    breakStale(dir, seen, nowMs)
    return `${holder.pid} (dead, taking over)`
  }
  return holder === undefined ? "?" : `${holder.pid}`
}

/**
 * Runs `effect` holding the named lock. Waits (polling every 20 ms, up to `timeout`) while another process holds it;
 * a locks directory that cannot be written is a StoreError.
 */
export const withLock =
  (locksDir: string, name: string, timeout: Duration.Input = "2 minutes") =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | LockTimeout | StoreError, R> => {
    const dir = join(locksDir, `${name}.lock`)
    const owner = thisProcess()
    let holder = "?"
    const acquire = Clock.currentTimeMillis.pipe(
      Effect.flatMap((nowMs) => attempt(locksDir, () => tryAcquire(dir, owner, nowMs))),
      Effect.tap((result) => Effect.sync(() => (holder = result))),
      Effect.repeat({ until: (result) => result === "acquired", schedule: Schedule.spaced("20 millis") }),
      Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(new LockTimeout({ name, holder })) })
    )
    const release = Effect.sync(() => {
      if (readOwner(dir) === owner) discard(dir)
    })
    return Effect.acquireUseRelease(acquire, () => effect, () => release)
  }
