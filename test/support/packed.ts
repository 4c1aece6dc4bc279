/**
 * orch as a user gets it: the packed tarball (`npm pack`, of the dist/ the global setup built) installed with npm
 * into a fresh package of its own (`"type": "module"`), outside this repository.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

export interface InstalledPackage {
  /** The user's package directory; orch is in its node_modules. */
  readonly dir: string
  /** Runs `node <script> ...args` (in `dir`, unless `cwd` says), with only PATH and the given variables set. */
  readonly node: (
    script: string,
    args?: ReadonlyArray<string>,
    options?: { readonly env?: Record<string, string>; readonly cwd?: string }
  ) => Promise<{ stdout: string; stderr: string }>
  /** Runs an installed command (`node_modules/.bin/<name>`) itself, as a shell would. */
  readonly bin: (
    name: string,
    args?: ReadonlyArray<string>,
    options?: { readonly env?: Record<string, string>; readonly cwd?: string }
  ) => Promise<{ stdout: string; stderr: string }>
  /** Runs this repository's TypeScript compiler on a tsconfig in `dir`. */
  readonly tsc: (tsconfig: string) => Promise<{ code: number; output: string }>
  readonly write: (file: string, text: string) => string
  readonly remove: () => void
}

export const installPacked = async (): Promise<InstalledPackage> => {
  const root = mkdtempSync(join(tmpdir(), "orch-packed-"))
  const dir = join(root, "user")
  mkdirSync(dir)
  await run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", root], { cwd: resolve("."), maxBuffer: 16 << 20 })
  const tarball = readdirSync(root).find((file) => file.endsWith(".tgz"))
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${root}`)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "orch-user", private: true, type: "module" }))
  await run("npm", ["install", join(root, tarball), "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, maxBuffer: 16 << 20 })
  const write = (file: string, text: string) => {
    const path = join(dir, file)
    writeFileSync(path, text)
    return path
  }
  return {
    dir,
    write,
    node: (script, args = [], options = {}) =>
      run(process.execPath, [script, ...args], { cwd: options.cwd ?? dir, env: { PATH: process.env.PATH ?? "", ...options.env }, encoding: "utf8" }),
    bin: (name, args = [], options = {}) =>
      run(join(dir, "node_modules", ".bin", name), args, { cwd: options.cwd ?? dir, env: { PATH: process.env.PATH ?? "", ...options.env }, encoding: "utf8" }),
    tsc: (tsconfig) =>
      run(process.execPath, [resolve("node_modules/typescript/bin/tsc"), "--project", join(dir, tsconfig)], { cwd: dir, encoding: "utf8" }).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, output: `${error.stdout ?? ""}${error.stderr ?? ""}` })
      ),
    remove: () => rmSync(root, { recursive: true, force: true })
  }
}
