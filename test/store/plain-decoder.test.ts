/**
 * The decoder compiled from a Schema's AST (src/store/plain-decoder.ts) builds exactly what the Schema's own decoder
 * builds for what it accepts (the same value, keys in the same order), accepts nothing the Schema rejects, and
 * refuses to compile a schema that is not plain data.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { SessionRecord } from "../../src/domain/session.ts"
import { compilePlainDecoder } from "../../src/store/plain-decoder.ts"
import { workingSession } from "../support/session-record.ts"

const AT = Date.parse("2026-11-27T10:00:00.000Z")
const minimal = workingSession(AT)
// Every optional field of a record, in an order other than the schema's, with keys no schema knows among them.
const full = {
  rateLimit: { continueAt: "2026-11-27T10:05:00.000Z", since: "2026-11-27T10:00:00.000Z", attempts: 2, kind: "overloaded", retrying: false },
  newerField: { kept: "no" },
  ...minimal,
  role: "orchestrator",
  host: "b",
  runtime: { plugin: "multiplexer", id: "app-1", data: { socket: "/t/s", pid: 42, pidStart: "77", nested: { a: [1, null] } } },
  agent: { plugin: "claude-code", conversationId: "c-1", extra: true },
  pr: { number: 7, url: "https://example/pr/7", state: "draft" },
  issue: { title: "Fix it", url: "https://example/1" },
  task: { title: "Do it" },
  configPath: "/c.yaml",
  project: { key: "app", path: "/r/app", repo: "acme/app", defaultBranch: "main", runtime: "multiplexer", workspace: "worktree" },
  said: { by: "report", activity: "ready", at: "2026-11-27T10:01:00.000Z", report: "done", note: "ok", overruled: true },
  signalOffset: 120,
  deadProbes: 1,
  checks: null,
  review: "approved",
  mergeable: true,
  failingChecks: [{ name: "ci", url: "https://example/ci", summary: "red", log: "…" }],
  reviewComments: [{ author: "ann", bot: false, body: "Hmm", path: "a.ts", line: 3, url: "https://example/c" }],
  reactions: { "ci-failed": { attempts: 1, firstTriggeredAt: "2026-11-27T10:02:00.000Z", escalated: false } },
  endedAt: "2026-11-27T11:00:00.000Z",
  rescueRef: "refs/orch/rescue/app-1",
  spawn: { pid: 9, startTime: "5", startedAt: "2026-11-27T10:00:00.000Z", workspace: "/w", createdBranch: true, announce: 3 },
  killing: { pid: 10, at: "2026-11-27T11:00:00.000Z" }
}

const decodePlain = compilePlainDecoder(SessionRecord)!
const decodeSchema = Schema.decodeUnknownResult(SessionRecord)

describe("a decoder compiled from a plain-data Schema", () => {
  it("compiles the session record's schema", () => assert.isDefined(compilePlainDecoder(SessionRecord)))

  it.each<[string, unknown]>([
    ["a minimal record", minimal],
    ["a record with every optional field, in another order, with keys no schema knows", full],
    ["an ended one with a merged PR and no terminal", { ...minimal, status: "merged", runtime: null, pr: { number: 1, url: "u", state: "merged" } }]
  ])("%s: the value the Schema decodes, keys in its order", (_name, input) => {
    const text = JSON.stringify(input)
    const expected = decodeSchema(JSON.parse(text))
    assert.strictEqual(expected._tag === "Failure" ? expected.failure.message : "Success", "Success")
    const decoded = decodePlain(JSON.parse(text))
    assert.deepStrictEqual(decoded, expected._tag === "Success" ? expected.success : undefined)
    assert.strictEqual(JSON.stringify(decoded), JSON.stringify(expected._tag === "Success" ? expected.success : undefined))
  })

  it.each<[string, unknown]>([
    ["not an object", [minimal]],
    ["a required key missing", (({ branch: _, ...rest }) => rest)(minimal)],
    ["a status no session has", { ...minimal, status: "sleeping" }],
    ["a PR number that is not an integer", { ...minimal, pr: { number: 1.5, url: "u", state: "open" } }],
    ["a string where a number goes", { ...minimal, signalOffset: "12" }],
    ["null where an object goes", { ...minimal, agent: null }],
    ["an element of a list of the wrong shape", { ...minimal, failingChecks: [{ url: "no name" }] }],
    ["a record of its terminal that is a list", { ...minimal, runtime: { plugin: "p", id: "i", data: [] } }],
    ["an optional key present but wrong", { ...minimal, host: 3 }],
    ["a boolean that is a string", { ...minimal, mergeable: "yes" }]
  ])("%s: rejected by both, so the Schema explains it", (_name, input) => {
    assert.strictEqual(decodeSchema(input)._tag, "Failure")
    assert.isUndefined(decodePlain(input))
  })

  it("decodes a struct with a `__proto__` key (not generated: the loop handles it) as the Schema does", () => {
    const schema = Schema.Struct({ ["__proto__"]: Schema.String, a: Schema.Int })
    const decode = compilePlainDecoder(schema)!
    const input = JSON.parse(`{"a": 1, "__proto__": "x", "b": true}`)
    const expected = Schema.decodeUnknownResult(schema)(input)
    assert.strictEqual(expected._tag, "Success")
    assert.deepStrictEqual(decode(input), expected._tag === "Success" ? expected.success : undefined)
    assert.isUndefined(decode(JSON.parse(`{"a": 1}`)))
  })

  it.each<[string, Schema.Top]>([
    ["a transformation", Schema.Struct({ n: Schema.NumberFromString })],
    ["a check other than isInt", Schema.Struct({ name: Schema.String.check(Schema.isNonEmpty()) })],
    ["a check on a struct", Schema.Struct({ a: Schema.Int }).check(Schema.makeFilter((s) => s.a > 0))],
    [
      "a union of two structs (which one decodes is the Schema's to say)",
      Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.String })])
    ],
    ["a class", Schema.Date]
  ])("does not compile a schema with %s", (_name, schema) => assert.isUndefined(compilePlainDecoder(schema)))
})
