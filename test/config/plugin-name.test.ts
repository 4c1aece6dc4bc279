import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { ConfigValidationError } from "../../src/config/errors.ts"
import { validateConfig } from "../../src/config/validate.ts"
import { withHost } from "../support/host.ts"

const host = withHost({ homeDir: "/home/u", cwd: "/work" })
const project = (extra: Record<string, unknown>) => ({ projects: { app: { repo: "local/app", path: "~/code/app", ...extra } } })

describe("a tracker or scm given by its name alone", () => {
  it.effect.each<[Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [{ tracker: "none" }, { plugin: "none" }, { plugin: "repohost" }],
    [{ tracker: "none", scm: "none" }, { plugin: "none" }, { plugin: "none" }],
    [{ tracker: { plugin: "none" } }, { plugin: "none" }, { plugin: "repohost" }],
    [{ tracker: "repohost", scm: { plugin: "repohost", mergeMethod: "rebase" } }, { plugin: "repohost" }, { plugin: "repohost", mergeMethod: "rebase" }]
  ])("%j", ([settings, tracker, scm]) =>
    Effect.gen(function*() {
      const config = yield* validateConfig(project(settings)).pipe(host)
      assert.deepStrictEqual(config.projects.app!.tracker, tracker)
      assert.deepStrictEqual(config.projects.app!.scm, scm)
    }))

  it.effect("an empty name or another type is an error at the key", () =>
    Effect.gen(function*() {
      for (const tracker of ["", 5]) {
        const error = yield* Effect.flip(validateConfig(project({ tracker })).pipe(host))
        assert.instanceOf(error, ConfigValidationError)
        assert.deepStrictEqual((error as ConfigValidationError).issues.map((i) => i.path), ["projects.app.tracker"])
      }
    }))
})
