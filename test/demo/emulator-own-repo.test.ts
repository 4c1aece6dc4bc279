/**
 * docs/repohost.md "Running it for your own repository", as a user follows it: its emulator.mjs copied as written into
 * a package of the user's own where the packed tarball is installed, run with `node` on a bare repository the test
 * makes (as the page says to), then the page's `curl` calls as written: a pull request opened, approved and changes
 * requested, each seen through GitHub's REST answers; its `ci` check ran on the pushed head; the page's project config
 * validates with the installed `orch`. Ctrl-C stops it (exit 0).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type InstalledPackage, installPacked } from "../support/packed.ts"
import { freePort } from "../support/ports.ts"

let pkg: InstalledPackage
let root: string

beforeAll(async () => {
  pkg = await installPacked()
  root = mkdtempSync(join(tmpdir(), "orch-own-emulator-"))
}, 240_000)

afterAll(() => {
  pkg?.remove()
  if (root !== undefined) rmSync(root, { recursive: true, force: true })
})

const section = () => {
  const page = readFileSync("docs/repohost.md", "utf8")
  const start = page.indexOf("### Running it for your own repository")
  return page.slice(start, page.indexOf("\n### ", start + 1))
}

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-C", cwd, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", ...args], { encoding: "utf8" }).trim()

describe("docs/repohost.md: the emulator for one's own repository", () => {
  it("the page's script serves a bare repository; its curl calls open, approve and review a pull request", async () => {
    const text = section()
    const script = /```js\n(\/\/ emulator\.mjs[^\n]*\n[\s\S]*?)```/.exec(text)?.[1]
    assert.isDefined(script, "the section has emulator.mjs")
    const calls = [...text.matchAll(/^curl .+$/gm)].map(([line]) => line)
    assert.strictEqual(calls.length, 3, "open, approve, request changes")

    // The page's setup: the project's repository, a bare one it pushes to as its origin.
    const code = join(root, "code", "app")
    const bare = join(root, "emulated", "app.git")
    mkdirSync(code, { recursive: true })
    git(root, "init", "-q", "--bare", "-b", "main", bare)
    git(code, "init", "-q", "-b", "main")
    writeFileSync(join(code, "README.md"), "# app\n")
    git(code, "add", ".")
    git(code, "commit", "-qm", "initial")
    git(code, "push", "-q", bare, "main")
    git(code, "remote", "add", "origin", bare)

    const port = await Effect.runPromise(freePort)
    pkg.write("emulator.mjs", script!)
    const child = spawn(process.execPath, ["emulator.mjs", bare, String(port)], { cwd: pkg.dir, env: { PATH: process.env.PATH ?? "", HOME: root } })
    try {
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      const url = `http://127.0.0.1:${port}`
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start line; stdout: ${stdout}`)), 30_000)
        child.stdout.on("data", () => stdout.includes("\n") && (clearTimeout(timer), resolve()))
      })
      assert.strictEqual(stdout, `repohost emulator at ${url}, serving acme/app from ${bare}\n`)

      git(code, "checkout", "-qb", "feat/x")
      writeFileSync(join(code, "x.txt"), "x\n")
      git(code, "add", ".")
      git(code, "commit", "-qm", "add x")
      git(code, "push", "-q", "origin", "feat/x")
      const curl = (line: string) => JSON.parse(execFileSync("sh", ["-c", line.replaceAll("4010", String(port))], { encoding: "utf8" }))
      const [open, approve, changes] = calls as [string, string, string]
      const pull = curl(open)
      assert.deepStrictEqual([pull.number, pull.state, pull.head.ref], [2, "open", "feat/x"])
      assert.strictEqual(curl(approve).state, "APPROVED")
      assert.strictEqual(curl(changes).state, "CHANGES_REQUESTED")
      const reviews = await (await fetch(`${url}/repos/acme/app/pulls/2/reviews`)).json() as Array<{ state: string }>
      assert.deepStrictEqual(reviews.map((r) => r.state), ["APPROVED", "CHANGES_REQUESTED"])
      const head = git(code, "rev-parse", "HEAD")
      const deadline = Date.now() + 20_000
      let conclusion: string | null = null
      while (conclusion === null && Date.now() < deadline) {
        const runs = await (await fetch(`${url}/repos/acme/app/commits/${head}/check-runs`)).json() as { check_runs: Array<{ conclusion: string | null }> }
        conclusion = runs.check_runs[0]?.conclusion ?? null
        if (conclusion === null) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.strictEqual(conclusion, "success", "the script's ci rule ran on the pushed head")

      // The page's config (its ~ is this HOME) is a valid one for that repository and port.
      const yaml = /```yaml\n([\s\S]*?)```/.exec(text)?.[1]
      assert.isDefined(yaml, "the section has the project's config")
      const config = pkg.write("orchestrator.yaml", yaml!.replaceAll("4010", String(port)))
      const valid = await pkg.bin("orch", ["config", "validate", config], { env: { HOME: root } })
      assert.deepStrictEqual(valid, { stdout: `${config}: valid (1 project)\n`, stderr: "" })

      const exited = new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)))
      child.kill("SIGINT")
      assert.strictEqual(await exited, 0)
    } finally {
      child.kill("SIGKILL")
    }
  }, 120_000)
})
