import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { parseConfigText } from "../../src/config/load.ts"
import { OrchestratorConfig } from "../../src/config/schema.ts"
import { validateConfig } from "../../src/config/validate.ts"
import { withHost } from "../support/host.ts"

const TAGS = ["ConfigValidationError", "DuplicateProjectIdError", "DuplicateSessionPrefixError", "ConfigParseError"]

/** The property: a config or one of the typed config errors, with a message; never a defect. */
const endsWell = <A>(effect: Effect.Effect<A, { readonly _tag: string; readonly message: string }>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect.pipe(withHost({ env: { A: "1" }, homeDir: "/h", cwd: "/w" })))
    if (Exit.isSuccess(exit)) return true
    const failure = exit.cause.reasons.find(Cause.isFailReason)
    assert.isDefined(failure, `a defect: ${Cause.pretty(exit.cause)}`)
    assert.include(TAGS, failure!.error._tag)
    assert.isAbove(failure!.error.message.length, 0)
    return true
  })

const Encoded = Schema.toEncoded(OrchestratorConfig)
const yamlish = Arbitrary.array(
  Arbitrary.schema(
    Schema.Literals([
      "projects:",
      "\n",
      "  ",
      "app:",
      " repo: a/b",
      " path: /x",
      "- ",
      "[",
      "]",
      "{",
      "}",
      ": ",
      "&a",
      "*a",
      "!!str",
      "'",
      "\"",
      "#",
      "${A}",
      "port: 1",
      "~",
      "|",
      ">",
      "---"
    ])
  )
).pipe(Arbitrary.map((parts) => parts.join("")))

describe("validateConfig never dies", () => {
  it.effect.prop("on any JSON value", [Arbitrary.schema(Schema.Json)], ([raw]) => endsWell(validateConfig(raw)))

  it.effect.prop("on any value shaped like a config", [Arbitrary.schema(Encoded)], ([raw]) => endsWell(validateConfig(raw)))

  it.effect.prop(
    "on any YAML-ish text",
    [yamlish],
    ([text]) => endsWell(Effect.flatMap(parseConfigText("/w/orchestrator.yaml", text), ({ raw, locate }) => validateConfig(raw, { locate })))
  )
})
