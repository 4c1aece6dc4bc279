/**
 * docs/library.md's programs as a user runs them: each one copied as written into a package of the user's own, where
 * the packed tarball is installed, and run with `node` (a fresh HOME, nothing of orch's test setup); what it prints is
 * what the page says it prints. Then a user's TypeScript against `orch/effect` and `orch/testing` compiles, and its
 * mistakes do not.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { type InstalledPackage, installPacked } from "../support/packed.ts"

let pkg: InstalledPackage

beforeAll(async () => {
  pkg = await installPacked()
}, 240_000)

afterAll(() => pkg?.remove())

/** Each program of the page (a ```js block whose first line is `// <name>.mjs`) with what the page says it prints. */
const programs = (): ReadonlyMap<string, { readonly code: string; readonly prints: string }> => {
  const page = readFileSync("docs/library.md", "utf8")
  const found = [...page.matchAll(/```js\n\/\/ (\S+\.mjs)\n([\s\S]*?)```\n+It prints:\n+```\n([\s\S]*?)```/g)]
  return new Map(found.map(([, name, code, prints]) => [name!, { code: code!, prints: prints! }]))
}

const run = async (name: string) => {
  const program = programs().get(name)
  assert.isDefined(program, `docs/library.md has the program ${name}, followed by what it prints`)
  const home = join(pkg.dir, `home-${name}`)
  mkdirSync(home, { recursive: true })
  pkg.write(name, program!.code)
  const { stdout, stderr } = await pkg.node(name, [], { env: { HOME: home } })
  return { stdout, stderr, prints: program!.prints }
}

describe("docs/library.md, run from the packed package", () => {
  it("has its three programs, each with what it prints", () => {
    assert.deepStrictEqual([...programs().keys()], ["pager.mjs", "child-runtime.mjs", "reactions.mjs"])
  })

  it("1. a notifier Layer registered under the name the config gives it receives the agent-needs-input notification", async () => {
    const { stdout, stderr, prints } = await run("pager.mjs")
    assert.deepStrictEqual({ stdout, stderr }, { stdout: prints, stderr: "" })
  }, 60_000)

  it("2. a runtime Layer of the program's own runs the agent, takes its messages and ends it: spawn, send, kill", async () => {
    const { stdout, stderr, prints } = await run("child-runtime.mjs")
    assert.deepStrictEqual({ stdout, stderr }, { stdout: prints, stderr: "" })
  }, 60_000)

  it("3. the default reactions on the TestClock: CI fails → told twice → escalated; silent 10 minutes → agent-stuck; in under a second", async () => {
    const { stdout, stderr, prints } = await run("reactions.mjs")
    assert.deepStrictEqual({ stdout, stderr }, { stdout: prints, stderr: "" })
  }, 60_000)

  it("a user's TypeScript against orch/effect and orch/testing compiles, and a Layer of the wrong slot does not", async () => {
    pkg.write("program.ts", readFileSync("test/fixtures/library/effect-program.ts", "utf8"))
    pkg.write(
      "tsconfig.effect.json",
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ["program.ts"]
      })
    )
    assert.deepStrictEqual(await pkg.tsc("tsconfig.effect.json"), { code: 0, output: "" })
  }, 120_000)
})
