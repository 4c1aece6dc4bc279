/**
 * orch as a user gets it: `npm pack` of this checkout, with its lifecycle scripts (prepack builds dist/ and leaves
 * `prepare` out of the packed manifest), installed from the tarball into a temp prefix, as `npm install -g` would,
 * from npm's local cache. The pack runs in a copy of the checkout's files, so its build never replaces the dist/
 * that other tests run. Removed when the scope closes.
 */
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

export interface PackedInstall {
  /** The directory with the installed `orch` command (put it first on PATH). */
  readonly bin: string
  /** Where the package was installed (`<prefix>/lib/node_modules/orch`). */
  readonly packageDir: string
  /** The files the tarball holds, as `package/<path>`. */
  readonly packed: ReadonlyArray<string>
  /** Native builds made at install (node-gyp leaves `build/config.gypi`): what a user without a compiler could not install. */
  readonly compiled: ReadonlyArray<string>
  /** The installed package.json's scripts: what npm would run, or ask the user to allow, at install. */
  readonly scripts: Readonly<Record<string, string>>
  /** What `npm install` warned about, but for the machine's own npm settings. */
  readonly installWarnings: ReadonlyArray<string>
  readonly packMs: number
  readonly installMs: number
}

/** Every `build/config.gypi` under `dir`: a node-gyp build happened there. */
const nodeGypBuilds = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(join("build", "config.gypi")))

const timed = async <A>(f: () => Promise<A>) => {
  const start = performance.now()
  const value = await f()
  return { value, ms: performance.now() - start }
}

/** The checkout's files as git sees them (tracked or not ignored), copied to `into`, with its node_modules linked. */
const copyCheckout = async (into: string) => {
  const listed = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: resolve("."), maxBuffer: 16 << 20 })
  for (const file of listed.stdout.split("\0").filter((f) => f !== "" && existsSync(f))) cpSync(file, join(into, file))
  symlinkSync(resolve("node_modules"), join(into, "node_modules"))
}

export const packedInstall = Effect.acquireRelease(
  Effect.promise(async (): Promise<PackedInstall & { readonly root: string }> => {
    const root = mkdtempSync(join(tmpdir(), "orch-packed-"))
    // npm's own settings (its cache, registry) stay the user's; nothing of the test's environment leaks in.
    const env = { HOME: process.env.HOME ?? root, PATH: process.env.PATH ?? "/usr/bin:/bin" }
    const checkout = join(root, "checkout")
    await copyCheckout(checkout)
    const pack = await timed(() => run("npm", ["pack", "--json", "--pack-destination", root], { cwd: checkout, env, maxBuffer: 16 << 20 }))
    const [tarball] = JSON.parse(pack.value.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
    const prefix = join(root, "prefix")
    const install = await timed(() =>
      run("npm", [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel",
        "warn",
        join(root, tarball!.filename)
      ], {
        cwd: root,
        env,
        maxBuffer: 16 << 20
      })
    )
    const packageDir = join(prefix, "lib", "node_modules", "orch")
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { scripts?: Record<string, string> }
    return {
      root,
      bin: join(prefix, "bin"),
      packageDir,
      packed: tarball!.files.map((f) => `package/${f.path}`),
      compiled: nodeGypBuilds(packageDir),
      scripts: manifest.scripts ?? {},
      installWarnings: install.value.stderr.split("\n").filter((line) => line.startsWith("npm warn") && !line.includes("Unknown user config")),
      packMs: pack.ms,
      installMs: install.ms
    }
  }),
  ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)
