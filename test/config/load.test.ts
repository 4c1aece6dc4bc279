import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { ConfigNotFoundError, ConfigParseError, ConfigValidationError } from "../../src/config/errors.ts"
import { findConfig } from "../../src/config/find.ts"
import { loadConfig, loadConfigWithPath } from "../../src/config/load.ts"
import { tempDir, withHost, writeFile } from "../support/host.ts"

const MINIMAL = "projects:\n  app:\n    repo: acme/app\n    path: /src/app\n"

/** A temp tree: home/, work/a/b/c (the cwd), elsewhere/. */
const tree = Effect.gen(function*() {
  const root = yield* tempDir()
  const home = join(root, "home")
  const cwd = join(root, "work", "a", "b", "c")
  const elsewhere = join(root, "elsewhere")
  for (const dir of [home, cwd, elsewhere]) mkdirSync(dir, { recursive: true })
  return { root, home, cwd, elsewhere }
})

describe("findConfig search order", () => {
  it.effect("ORCH_CONFIG_PATH wins over everything", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const explicit = writeFile(join(t.elsewhere, "custom.yaml"), MINIMAL)
      writeFile(join(t.cwd, "orchestrator.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(withHost({ cwd: t.cwd, homeDir: t.home, env: { ORCH_CONFIG_PATH: explicit } })), explicit)
    }))

  it.effect("ORCH_CONFIG_PATH naming a missing file finds nothing rather than something else", () =>
    Effect.gen(function*() {
      const t = yield* tree
      writeFile(join(t.cwd, "orchestrator.yaml"), MINIMAL)
      const env = { ORCH_CONFIG_PATH: join(t.root, "missing.yaml") }
      assert.strictEqual(yield* findConfig().pipe(withHost({ cwd: t.cwd, homeDir: t.home, env })), null)
      const error = yield* loadConfig().pipe(withHost({ cwd: t.cwd, homeDir: t.home, env }), Effect.flip)
      assert.instanceOf(error, ConfigNotFoundError)
      assert.deepStrictEqual((error as ConfigNotFoundError).searched, [join(t.root, "missing.yaml")])
    }))

  it.effect("walks up from the working directory, .yaml before .yml in each directory", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const host = withHost({ cwd: t.cwd, homeDir: t.home })
      const upper = writeFile(join(t.root, "work", "orchestrator.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), upper)
      const ymlNearer = writeFile(join(t.root, "work", "a", "orchestrator.yml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), ymlNearer)
      const yamlSameDir = writeFile(join(t.root, "work", "a", "orchestrator.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), yamlSameDir)
      const here = writeFile(join(t.cwd, "orchestrator.yml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), here)
    }))

  it.effect("then an explicit start directory (and its parents)", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const inStart = writeFile(join(t.elsewhere, "orchestrator.yaml"), MINIMAL)
      writeFile(join(t.home, ".orchestrator.yaml"), MINIMAL)
      const host = withHost({ cwd: t.cwd, homeDir: t.home })
      assert.strictEqual(yield* findConfig(join(t.elsewhere, "deeper")).pipe(host), inStart)
      const inCwd = writeFile(join(t.cwd, "orchestrator.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig(t.elsewhere).pipe(host), inCwd)
    }))

  it.effect("then the home locations, in order", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const host = withHost({ cwd: t.cwd, homeDir: t.home })
      assert.strictEqual(yield* findConfig().pipe(host), null)
      const xdgYml = writeFile(join(t.home, ".config", "orchestrator", "config.yml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), xdgYml)
      const xdg = writeFile(join(t.home, ".config", "orchestrator", "config.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), xdg)
      const dotYml = writeFile(join(t.home, ".orchestrator.yml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), dotYml)
      const dotYaml = writeFile(join(t.home, ".orchestrator.yaml"), MINIMAL)
      assert.strictEqual(yield* findConfig().pipe(host), dotYaml)
    }))

  it.effect("a directory named orchestrator.yaml is not a config file", () =>
    Effect.gen(function*() {
      const t = yield* tree
      mkdirSync(join(t.cwd, "orchestrator.yaml"))
      assert.strictEqual(yield* findConfig().pipe(withHost({ cwd: t.cwd, homeDir: t.home })), null)
    }))
})

describe("loadConfig", () => {
  it.effect("loads, validates and returns the absolute path", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const file = writeFile(join(t.cwd, "orchestrator.yaml"), MINIMAL)
      const loaded = yield* loadConfigWithPath().pipe(withHost({ cwd: t.cwd, homeDir: t.home }))
      assert.strictEqual(loaded.path, file)
      assert.strictEqual(loaded.config.configPath, file)
      assert.strictEqual(loaded.config.projects.app!.id, "app")
      const relative = yield* loadConfigWithPath("orchestrator.yaml").pipe(withHost({ cwd: t.cwd, homeDir: t.home }))
      assert.strictEqual(relative.path, file)
    }))

  it.effect("nothing found: ConfigNotFoundError keeps every place searched and says where it looked in one line", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const error = yield* loadConfig().pipe(withHost({ cwd: t.cwd, homeDir: t.home }), Effect.flip)
      assert.instanceOf(error, ConfigNotFoundError)
      assert.include((error as ConfigNotFoundError).searched, join(t.cwd, "orchestrator.yaml"))
      assert.include((error as ConfigNotFoundError).searched, join(t.home, ".config", "orchestrator", "config.yml"))
      assert.strictEqual(
        error.message,
        `No config file found: no orchestrator.yaml (or .yml) in ${t.cwd} or any directory above it, nor ${join(t.home, ".orchestrator.yaml")} or ` +
          `${join(t.home, ".config", "orchestrator", "config.yaml")} (or .yml); create one with \`orch init\`, or point ORCH_CONFIG_PATH at one`
      )
    }))

  it.effect("a YAML syntax error names file, line and column", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const file = writeFile(join(t.cwd, "orchestrator.yaml"), "projects:\n  app:\n    repo: [acme/app\n    path: /x\n")
      const error = yield* loadConfig(file).pipe(withHost({ cwd: t.cwd, homeDir: t.home }), Effect.flip)
      assert.instanceOf(error, ConfigParseError)
      assert.match(error.message, new RegExp(`^${file}:\\d+:\\d+: YAML syntax error: `))
      assert.notInclude(error.message, "\n")
    }))

  it.effect("duplicate keys in YAML are a syntax error, not a silent override", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const file = writeFile(join(t.cwd, "orchestrator.yaml"), "port: 1\nport: 2\nprojects: {}\n")
      const error = yield* loadConfig(file).pipe(withHost({ cwd: t.cwd, homeDir: t.home }), Effect.flip)
      assert.instanceOf(error, ConfigParseError)
      assert.strictEqual((error as ConfigParseError).line, 2)
    }))

  it.effect("validation issues carry file:line:col", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const file = writeFile(
        join(t.cwd, "orchestrator.yaml"),
        "port: 3000\nprojects:\n  app:\n    repo: nope\n    path: /src/app\n    colour: blue\n  other:\n    path: /src/other\n"
      )
      const error = yield* loadConfig(file).pipe(withHost({ cwd: t.cwd, homeDir: t.home }), Effect.flip)
      assert.instanceOf(error, ConfigValidationError)
      assert.deepStrictEqual(error.message.split("\n"), [
        `Validation error at "projects.app.colour": Unknown key "colour" (${file}:6:5)`,
        `Validation error at "projects.app.repo": Expected "owner/repo" (${file}:4:5)`,
        `Validation error at "projects.other.repo": Required (${file}:7:3)`
      ])
    }))

  it.effect("an empty file is a config without projects: Required", () =>
    Effect.gen(function*() {
      const t = yield* tree
      const file = writeFile(join(t.cwd, "orchestrator.yaml"), "# nothing yet\n")
      const error = yield* loadConfig(file).pipe(withHost({ cwd: t.cwd, homeDir: t.home }), Effect.flip)
      assert.strictEqual(error.message, "Validation error at \"projects\": Required")
    }))
})
