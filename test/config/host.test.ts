import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { findConfig } from "../../src/config/find.ts"
import { Host } from "../../src/config/host.ts"
import { loadConfig } from "../../src/config/load.ts"
import { tempDir, writeFile } from "../support/host.ts"

const config = (repo: string) => `projects:\n  app:\n    repo: ${repo}\n    path: /src/app\n`

/** Runs `f` in `dir` with HOME set to `home`, restoring both afterwards. */
const inProcess = <A, E, R>(dir: string, home: string, f: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const before = { cwd: process.cwd(), home: process.env.HOME }
      process.chdir(dir)
      process.env.HOME = home
      return before
    }),
    () => f,
    (before) =>
      Effect.sync(() => {
        process.chdir(before.cwd)
        if (before.home === undefined) delete process.env.HOME
        else process.env.HOME = before.home
      })
  )

describe("Host without an override: the process, read at each call", () => {
  it.effect("a program that changes directory gets the new directory's config", () =>
    Effect.gen(function*() {
      const root = realpathSync(yield* tempDir())
      const home = join(root, "home")
      mkdirSync(home)
      const one = writeFile(join(root, "one", "orchestrator.yaml"), config("acme/one"))
      const two = writeFile(join(root, "two", "orchestrator.yaml"), config("acme/two"))

      assert.strictEqual(yield* inProcess(join(root, "one"), home, findConfig()), one)
      assert.strictEqual((yield* inProcess(join(root, "one"), home, loadConfig())).projects.app!.repo, "acme/one")
      assert.strictEqual(yield* inProcess(join(root, "two"), home, findConfig()), two)
      assert.strictEqual((yield* inProcess(join(root, "two"), home, loadConfig())).projects.app!.repo, "acme/two")
      assert.strictEqual(yield* inProcess(join(root, "two"), home, Effect.map(Host, (host) => host.cwd)), join(root, "two"))
    }))

  it.effect("a changed HOME and environment are seen by the next call", () =>
    Effect.gen(function*() {
      const root = realpathSync(yield* tempDir())
      const nowhere = join(root, "nowhere")
      mkdirSync(nowhere)
      const homeA = join(root, "a")
      const homeB = join(root, "b")
      const inA = writeFile(join(homeA, ".orchestrator.yaml"), config("acme/a"))
      const inB = writeFile(join(homeB, ".config", "orchestrator", "config.yaml"), config("acme/b"))
      assert.strictEqual(yield* inProcess(nowhere, homeA, findConfig()), inA)
      assert.strictEqual(yield* inProcess(nowhere, homeB, findConfig()), inB)
      assert.strictEqual(yield* inProcess(nowhere, homeB, Effect.map(Host, (host) => host.homeDir)), homeB)

      const explicit = writeFile(join(root, "elsewhere.yaml"), config("acme/env"))
      process.env.ORCH_CONFIG_PATH = explicit
      try {
        assert.strictEqual(yield* inProcess(nowhere, homeB, findConfig()), explicit)
      } finally {
        delete process.env.ORCH_CONFIG_PATH
      }
      assert.strictEqual(yield* inProcess(nowhere, homeB, findConfig()), inB)
    }))
})
