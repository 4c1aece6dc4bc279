import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeProcessRuntime, makeProcessTerminals, plainScreen } from "../../../src/plugins/runtime/process.ts"

/** Asks again every 50 ms for up to 10 s; on time-out says what it waited for and what it last saw. */
const eventually = <A, E>(what: string, effect: Effect.Effect<A, E>, check: (a: A) => boolean) => {
  let last: A | undefined
  return effect.pipe(
    Effect.tap((a) => Effect.sync(() => (last = a))),
    Effect.filterOrFail(check, () => "not yet" as const),
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 200 }),
    Effect.mapError(() => new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last instanceof Map ? [...last] : last)}`))
  )
}

describe("runtime process (a node-pty pseudo-terminal, owned by the supervisor)", () => {
  it.live("refuses to start agents outside a supervisor", () =>
    Effect.gen(function*() {
      const error = yield* makeProcessRuntime(yield* makeProcessTerminals({ supervisor: false })).create({
        sessionId: "p-0",
        workingDir: "/",
        command: "true",
        env: {},
        unsetEnv: []
      }).pipe(Effect.flip)
      assert.include(error.message, "orch start")
    }))

  it.live("runs the agent in a pty: input, screen, exit, destroy", () =>
    Effect.gen(function*() {
      const runtime = makeProcessRuntime(yield* makeProcessTerminals({ supervisor: true }))
      const handle = yield* runtime.create({
        sessionId: "p-1",
        workingDir: "/tmp",
        command: `echo "ready $WHO in $(pwd) token=\${GITHUB_TOKEN:-none}"; read line; echo "got: $line"; read end; exit 4`,
        env: { PATH: process.env.PATH ?? "", WHO: "p-1", GITHUB_TOKEN: "leak" },
        unsetEnv: ["GITHUB_TOKEN"]
      })
      assert.strictEqual(handle.plugin, "process")
      yield* eventually("the ready line", runtime.capture(handle), (s) => s.includes("ready p-1 in /tmp token=none"))
      const alive = (yield* runtime.probe([handle])).get("p-1") as { readonly _tag: string; readonly lastOutputAt: number }
      assert.strictEqual(alive._tag, "Alive")
      const sent = Date.now()
      yield* runtime.send(handle, "hello")
      yield* eventually("the answer", runtime.capture(handle), (s) => s.includes("got: hello"))
      const answered = (yield* runtime.probe([handle])).get("p-1") as { readonly lastOutputAt: number }
      assert.isAtLeast(answered.lastOutputAt, sent, "its answer is its last output")
      assert.isAbove(answered.lastOutputAt, alive.lastOutputAt)
      yield* runtime.send(handle, "end")
      const exited = yield* eventually("the exit", runtime.probe([handle]), (m) => m.get("p-1")?._tag === "Exited")
      assert.deepStrictEqual(exited.get("p-1"), { _tag: "Exited", exitCode: 4 })
      assert.deepStrictEqual(yield* runtime.list!(), ["p-1"])
      yield* runtime.destroy(handle)
      assert.deepStrictEqual((yield* runtime.probe([handle])).get("p-1"), { _tag: "Gone" })
    }))

  it.live("a message bigger than the terminal's buffer, to an agent not reading yet, never stalls the supervisor", () =>
    Effect.gen(function*() {
      const runtime = makeProcessRuntime(yield* makeProcessTerminals({ supervisor: true }))
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "orch-pty-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const bytes = 256 * 1024
      // The agent reads nothing until the file `go` appears (or 10 s pass), then reports how much it read.
      const handle = yield* Effect.acquireRelease(
        runtime.create({
          sessionId: "p-2",
          workingDir: dir,
          command:
            `stty raw -echo; echo ready; i=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; echo "got $(head -c ${bytes} | wc -c) bytes"`,
          env: { PATH: process.env.PATH ?? "" },
          unsetEnv: []
        }),
        (handle) => Effect.orDie(runtime.destroy(handle))
      )
      yield* eventually("the ready line", runtime.capture(handle), (s) => s.includes("ready"))
      // A write that waited for the agent to read would block the supervisor's whole event loop (here until the
      // agent stops waiting, since `go` is written only after the send); the longest gap between 10 ms ticks shows it.
      let last = Date.now()
      let longestGap = 0
      const outcome = yield* Effect.acquireUseRelease(
        Effect.sync(() =>
          setInterval(() => {
            const now = Date.now()
            longestGap = Math.max(longestGap, now - last)
            last = now
          }, 10)
        ),
        () => runtime.send(handle, "x".repeat(bytes - 1)).pipe(Effect.match({ onFailure: (e) => e._tag, onSuccess: () => "confirmed" })),
        (ticker) => Effect.sync(() => clearInterval(ticker))
      )
      assert.isBelow(longestGap, 1000, "the event loop stopped while the message was written")
      assert.strictEqual(outcome, "DeliveryUnconfirmed", "the agent cannot have answered: it was not reading")
      writeFileSync(join(dir, "go"), "")
      yield* eventually("the whole message read", runtime.capture(handle), (s) => new RegExp(`got\\s+${bytes} bytes`).test(s))
    }).pipe(Effect.scoped))

  it("the screen is the output's tail without escape sequences", () => {
    assert.strictEqual(plainScreen("\x1b[1mbold\x1b[0m\r\nprogress 10%\rprogress 99%\r\n\x1b]0;title\x07done", 3), "bold\nprogress 99%\ndone")
  })
})
