/**
 * The cross-process lock and the process check under it: a zombie, a pid that now names another process, and a
 * lock left half-made are all taken over; a live owner is waited for. Zombies here are real: `sh` starts a child
 * in the background and then `exec`s into `sleep`, which never reaps it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseOwner, withLock } from "../../src/store/lock.ts"
import { isProcessAlive, parseProcStat, processStartTime } from "../../src/store/process-liveness.ts"
import { tempDir } from "../support/host.ts"
import { zombie } from "../support/zombie.ts"

describe("parseProcStat", () => {
  const line = (name: string, state: string) =>
    `4242 (${name}) ${state} 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 18446744073709551615`
  it.each([
    ["a plain name", line("node", "S"), { state: "S", startTime: "987654" }],
    ["a zombie", line("node", "Z"), { state: "Z", startTime: "987654" }],
    ["a name with spaces and parentheses", line("a (b) c", "R"), { state: "R", startTime: "987654" }],
    ["no closing parenthesis", "4242 (node S 1", undefined],
    ["too few fields", "4242 (node) S 1 2 3", undefined]
  ])("%s", (_, text, expected) => assert.deepStrictEqual(parseProcStat(text), expected))
})

describe("parseOwner", () => {
  it.each([
    ["12", { pid: 12 }],
    ["12 345\n", { pid: 12, startTime: "345" }],
    ["", undefined],
    ["x", undefined],
    ["12 345 6", undefined],
    ["-3", undefined]
  ])("%j", (text, expected) => assert.deepStrictEqual(parseOwner(text), expected))
})

describe("isProcessAlive", () => {
  it.live("this process: alive; with another start time (its pid reused): not", () =>
    Effect.sync(() => {
      assert.isTrue(isProcessAlive(process.pid))
      assert.isTrue(isProcessAlive(process.pid, processStartTime(process.pid)))
      assert.isFalse(isProcessAlive(process.pid, "1"))
    }))

  it.live("a zombie is not alive, though kill(pid, 0) says it is", () =>
    Effect.gen(function*() {
      const { pid } = yield* zombie
      assert.doesNotThrow(() => process.kill(pid, 0))
      assert.isFalse(isProcessAlive(pid))
    }))
})

describe("withLock", () => {
  const owner = (dir: string, text: string) => {
    mkdirSync(join(dir, "x.lock"), { recursive: true })
    writeFileSync(join(dir, "x.lock", "owner"), text)
  }

  it.live("takes over a lock whose owner is a zombie, one whose pid was reused, and a half-made one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const { pid } = yield* zombie
      for (const text of [`${pid}`, `${process.pid} 1`, ""]) {
        if (text === "") mkdirSync(join(dir, "x.lock"), { recursive: true })
        else owner(dir, text)
        const seen = yield* Effect.sync(() => readFileSync(join(dir, "x.lock", "owner"), "utf8")).pipe(withLock(dir, "x", "5 seconds"))
        assert.strictEqual(seen, `${process.pid} ${processStartTime(process.pid)}`, `owner ${JSON.stringify(text)} is replaced`)
        assert.isFalse(existsSync(join(dir, "x.lock")), "released")
      }
    }))

  it.live("waits for a live owner, and says who holds it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const sleeper = yield* Effect.acquireRelease(Effect.sync(() => spawn("sleep", ["60"])), (p) => Effect.sync(() => p.kill("SIGKILL")))
      owner(dir, `${sleeper.pid}`)
      const exit = yield* Effect.exit(Effect.void.pipe(withLock(dir, "x", "300 millis")))
      assert.isTrue(Exit.isFailure(exit))
      assert.match(String(Exit.isFailure(exit) ? exit.cause : ""), new RegExp(`held by process ${sleeper.pid}`))
      assert.strictEqual(readFileSync(join(dir, "x.lock", "owner"), "utf8"), `${sleeper.pid}`, "a live owner's lock is left alone")
    }))

  it.live("one holder at a time within the process too", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      let inside = 0
      let most = 0
      const critical = Effect.gen(function*() {
        inside++
        most = Math.max(most, inside)
        yield* Effect.sleep("5 millis")
        inside--
      }).pipe(withLock(dir, "x", "10 seconds"))
      yield* Effect.all(Array.from({ length: 8 }, () => critical), { concurrency: "unbounded" })
      assert.strictEqual(most, 1)
    }))
})
