import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { expected, readAnswer } from "../../src/plugins/answer.ts"

const Issue = Schema.Struct({
  title: Schema.String,
  url: Schema.String,
  labels: Schema.Array(Schema.Struct({ name: Schema.String }))
})
const issue = { title: "t", url: "u", labels: [] }

describe("reading a host's answer", () => {
  it.effect.each<[string, unknown, string]>([
    ["one field missing", { url: "u", labels: [] }, "answered an issue without `title`"],
    ["two missing", { labels: [] }, "answered an issue without `title` and `url`"],
    ["a field of the wrong type, deep", { ...issue, labels: [{ name: 3 }] }, "answered an issue with `labels.0.name`: Expected string, got 3"],
    ["missing and wrong together", { url: 1, labels: [] }, "answered an issue without `title`; with `url`: Expected string, got 1"],
    ["not an object at all", "<html>", "answered an issue with something else (Expected object, got \"<html>\")"],
    [
      "many problems: four named, the rest counted",
      { labels: [{}, {}, {}, {}] },
      "answered an issue without `title`, `url`, `labels.0.name` and `labels.1.name` (and 2 more problems)"
    ]
  ])("%s", ([, value, problem]) =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.flip(readAnswer(expected(Issue, "an issue"))(value)), problem)
    }))

  it.effect("a good answer is its decoded value", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readAnswer(expected(Issue, "an issue"))({ ...issue, extra: true }), issue)
    }))
})
