/**
 * `npm ci` refuses a lock that leaves out any optional dependency, even one for another platform. A registry
 * mirror that lacks a platform package makes `npm install` leave it out silently; scripts/lock-platforms.mjs
 * puts it back. This catches the gap before CI's `npm ci` does. npm also warns at every install about a
 * dependency's install script that package.json's `allowScripts` says nothing of: each has a decision, and
 * dprint's denied one is not needed (its command finds its platform's binary itself).
 */
import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "vitest"

const run = promisify(execFile)
const root = resolve(import.meta.dirname, "../..")

interface LockEntry {
  readonly optionalDependencies?: Record<string, string>
  readonly hasInstallScript?: boolean
}

const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> }

/** `node_modules/@scope/name` → `@scope/name`; an `allowScripts` key (`name` or `name@1.2.3`) → its name. */
const packageName = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)
const keyName = (key: string) => key.replace(/(?<=.)@.*$/, "")

describe("package-lock.json", () => {
  it("lists every optional dependency of every package, so npm ci accepts it on any platform", () => {
    const missing = Object.values(lock.packages).flatMap((entry) =>
      Object.keys(entry.optionalDependencies ?? {}).filter((name) => lock.packages[`node_modules/${name}`] === undefined)
    )
    assert.deepStrictEqual(missing, [], "run `node scripts/lock-platforms.mjs`")
  })

  it("every dependency with an install script is allowed or denied in allowScripts, and npm finds none left to review", async () => {
    const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map(keyName))
    const undecided = Object.entries(lock.packages).filter(([path, entry]) => path !== "" && entry.hasInstallScript === true && !decided.has(packageName(path)))
    assert.deepStrictEqual(undecided.map(([path]) => packageName(path)), [], "add each to allowScripts in package.json (true or false)")
    assert.strictEqual(manifest.allowScripts?.dprint, false)
    // The real npm on the installed tree: what it would warn about at the end of an install.
    const { stdout, stderr } = await run("npm", ["install-scripts", "ls"], { cwd: root, encoding: "utf8" })
    assert.notMatch(`${stdout}${stderr}`, /not yet covered|dprint|esbuild|claude-code/, `npm install-scripts ls: ${stdout}${stderr}`)
  }, 60_000)

  it("dprint runs without its install script: its command finds its platform package's binary itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-dprint-"))
    try {
      // The dprint package as an install that skipped its script leaves it: no binary in its own folder.
      const pkg = join(dir, "node_modules", "dprint")
      const source = join(root, "node_modules", "dprint")
      const binaries = new Set([join(source, "dprint"), join(source, "dprint.exe")])
      cpSync(source, pkg, { recursive: true, filter: (path) => !binaries.has(path) })
      assert.notInclude(readdirSync(pkg), "dprint")
      symlinkSync(join(root, "node_modules", "@dprint"), join(dir, "node_modules", "@dprint"))
      const { stdout } = await run(process.execPath, [join(pkg, "bin.cjs"), "--version"], { cwd: dir, encoding: "utf8" })
      assert.match(stdout, /^dprint \d+\.\d+\.\d+/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
