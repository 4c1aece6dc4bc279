/**
 * Activity from a host, the reading and the mirroring: the pure steps in a table, and the script run by a real
 * shell (`local` through HostConnections: the same `sh -s` a host runs) over real files.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LOCAL } from "../../src/config/host-spec.ts"
import { type ActivityAnswer, activityScript, applyMirror, mirrorOffset, mirrorStep, parseActivity } from "../../src/hosts/activity-mirror.ts"
import { HostConnections } from "../../src/hosts/HostConnections.ts"
import { storePaths } from "../../src/store/paths.ts"
import { tempDir } from "../support/host.ts"

const read = (from: number, text: string, size = from + Buffer.byteLength(text)): ActivityAnswer => ({ _tag: "Read", size, from, bytes: Buffer.from(text) })

describe("activity mirror (pure)", () => {
  it.each(
    [
      ["no file yet: nothing", 0, { _tag: "Missing" } as ActivityAnswer, false, ""],
      ["nothing new", 10, read(10, ""), false, ""],
      ["whole lines", 0, read(0, "{\"a\":1}\n{\"b\":2}\n"), false, "{\"a\":1}\n{\"b\":2}\n"],
      ["a partial last line waits", 5, read(5, "{\"a\":1}\n{\"b\""), false, "{\"a\":1}\n"],
      ["only a partial line: nothing yet", 5, read(5, "{\"b\""), false, ""],
      ["a file that started again is read from its start", 40, read(0, "{\"c\":3}\n", 8), true, "{\"c\":3}\n"],
      ["multi-byte text stays whole", 0, read(0, "{\"é\":\"✓\"}\n"), false, "{\"é\":\"✓\"}\n"]
    ] as const
  )("%s", (_name, asked, answer, restarted, append) => {
    const step = mirrorStep(asked, answer)
    assert.strictEqual(step.restarted, restarted)
    assert.strictEqual(step.append.toString("utf8"), append)
  })

  it("a line longer than the limit is cut, so the mirror moves on by exactly the limit", () => {
    const step = mirrorStep(0, read(0, "x".repeat(16)), 16)
    assert.strictEqual(step.append.length, 16)
    assert.strictEqual(step.append.toString(), `${"x".repeat(15)}\n`)
  })

  it("answers are read per session; one cut short is left out", () => {
    const out = [
      "@activity p-1 -",
      "@activity p-2 12 4",
      Buffer.from("line\n").toString("base64"),
      "@activity p-3 9 0"
    ].join("\n")
    const answers = parseActivity(out)
    assert.deepStrictEqual(answers.get("p-1"), { _tag: "Missing" })
    assert.deepStrictEqual(answers.get("p-2"), { _tag: "Read", size: 12, from: 4, bytes: Buffer.from("line\n") })
    assert.isFalse(answers.has("p-3"))
  })
})

describe("activity mirror through a real shell", () => {
  it.effect("mirrors whole lines, goes on from the mirror's size, reads a host file that started again from its start", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-mirror-")
      const hostData = join(dir, "host data")
      const local = storePaths(join(dir, "local"))
      const hostFile = join(hostData, "sessions", "p", "p-1", "activity.jsonl")
      mkdirSync(join(hostData, "sessions", "p", "p-1"), { recursive: true })
      mkdirSync(local.session("p", "p-1"), { recursive: true })
      const connections = yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") })
      const round = Effect.gen(function*() {
        const tails = ["p-1", "p-2"].map((sessionId) => ({ projectId: "p", sessionId, offset: mirrorOffset(local, "p", sessionId) }))
        const result = yield* connections.run(LOCAL, activityScript(hostData, tails))
        assert.strictEqual(result.exitCode, 0, result.stderr)
        yield* applyMirror(local, tails, parseActivity(result.stdout))
        return readFileSync(local.activity("p", "p-1"), { encoding: "utf8", flag: "a+" })
      })

      writeFileSync(hostFile, "{\"event\":\"SessionStart\"}\n{\"event\":\"Stop\"")
      assert.strictEqual(yield* round, "{\"event\":\"SessionStart\"}\n")
      appendFileSync(hostFile, "}\n{\"event\":\"UserPromptSubmit\",\"x\":\"é\"}\n")
      assert.strictEqual(yield* round, "{\"event\":\"SessionStart\"}\n{\"event\":\"Stop\"}\n{\"event\":\"UserPromptSubmit\",\"x\":\"é\"}\n")
      assert.strictEqual(mirrorOffset(local, "p", "p-1"), Buffer.byteLength(readFileSync(hostFile)))
      const before = yield* round
      assert.strictEqual(yield* round, before, "nothing new: nothing appended")

      // The host's file started again (its data was lost): read from its start, and on from there.
      writeFileSync(hostFile, "{\"event\":\"SessionStart\",\"again\":true}\n")
      const after = yield* round
      assert.strictEqual(after, `${before}{"event":"SessionStart","again":true}\n`)
      appendFileSync(hostFile, "{\"event\":\"Stop\"}\n")
      assert.strictEqual(yield* round, `${after}{"event":"Stop"}\n`)
      assert.strictEqual(mirrorOffset(local, "p", "p-1"), Buffer.byteLength(readFileSync(hostFile)), "the offset follows the host's file")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
