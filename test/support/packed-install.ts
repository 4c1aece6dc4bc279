/**
 * orch as a user gets it: `npm pack` of this checkout (dist/ is built by the global setup) installed from the
 * tarball into a temp prefix, as `npm install -g` would, from npm's local cache. Removed when the scope closes.
 */
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
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

export const packedInstall = Effect.acquireRelease(
  Effect.promise(async (): Promise<PackedInstall & { readonly root: string }> => {
    const root = mkdtempSync(join(tmpdir(), "orch-packed-"))
    // npm's own settings (its cache, registry) stay the user's; nothing of the test's environment leaks in.
    const env = { HOME: process.env.HOME ?? root, PATH: process.env.PATH ?? "/usr/bin:/bin" }
    const pack = await timed(() =>
      run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], { cwd: resolve("."), env, maxBuffer: 16 << 20 })
    )
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
        "error",
        join(root, tarball!.filename)
      ], {
        cwd: root,
        env,
        maxBuffer: 16 << 20
      })
    )
    const packageDir = join(prefix, "lib", "node_modules", "orch")
    return {
      root,
      bin: join(prefix, "bin"),
      packageDir,
      packed: tarball!.files.map((f) => `package/${f.path}`),
      compiled: nodeGypBuilds(packageDir),
      packMs: pack.ms,
      installMs: install.ms
    }
  }),
  ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)
