/**
 * A lock shared by every orch process on the machine: a directory created with `mkdir` (atomic) holding the
 * owner's pid. A lock whose owner died is taken over, so a `kill -9` never leaves it stuck.
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export class LockTimeout extends Schema.TaggedError<LockTimeout>()("LockTimeout", {
  name: Schema.String,
  holder: Schema.String
}) {
  override get message() {
    return `waited too long for the ${this.name} lock (held by process ${this.holder})`
  }
}

export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryAcquire = (dir: string): "acquired" | string => {
  try {
    mkdirSync(dir, { recursive: false })
    writeFileSync(join(dir, "owner"), String(process.pid))
    return "acquired"
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      mkdirSync(join(dir, ".."), { recursive: true })
      return tryAcquire(dir)
    }
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    let owner = ""
    try {
      owner = readFileSync(join(dir, "owner"), "utf8")
    } catch {
      // the owner is between mkdir and writing its pid
    }
    const pid = Number(owner)
    if (owner !== "" && Number.isInteger(pid) && !isProcessAlive(pid)) {
      rmSync(dir, { recursive: true, force: true })
      return tryAcquire(dir)
    }
    return owner || "?"
  }
}

/** Runs `effect` holding the named lock. Waits (polling every 20 ms, up to `timeout`) while another process holds it. */
export const withLock = (locksDir: string, name: string, timeout = "2 minutes" as const) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | LockTimeout, R> => {
  const dir = join(locksDir, `${name}.lock`)
  let holder = "?"
  const acquire = Effect.sync(() => tryAcquire(dir)).pipe(
    Effect.tap((result) => Effect.sync(() => (holder = result))),
    Effect.repeat({ until: (result) => result === "acquired", schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(new LockTimeout({ name, holder })) })
  )
  return Effect.acquireUseRelease(acquire, () => effect, () => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
}
