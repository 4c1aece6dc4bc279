/**
 * Loads a command bundle (dist/cli.cjs, the command tree; dist/views.cjs, `orch status` and `orch queue ls` alone:
 * each one CommonJS bundle) with a V8 code cache, so a command skips compiling the JavaScript it runs. `module.enableCompileCache` fills a cache directory on a command's first run,
 * keyed by the file's absolute path; this one ships in the package (the build makes it), so a fresh install's first
 * command is fast too. Hence CommonJS through `vm.Script` with `cachedData`.
 *
 * Every cache file names the bundle it belongs to (the bundle's hash) and the Node it was made by (version and
 * architecture) in its header, and carries a checksum of its bytes: V8 trusts a cache that passes its version
 * check, so a file for another bundle or a damaged one is never handed to it, and one made by another Node is not
 * either (V8 would refuse it, but only after spending 100–200 ms on it, on every command).
 *
 * The user's cache directory is looked in first, then beside the bundle (the build makes one, for the build's
 * Node): a user cache exists only where the shipped one was not taken, and is made by this Node. V8 may still
 * refuse one (other V8 flags: `cachedDataRejected`). When none is taken, the command runs compiling as usual and,
 * as it exits, leaves a cache for next time in the user's cache directory. Nothing here can fail a command: no
 * cache, or an unusable one, is a normal start.
 *
 * This module is part of the `orch` entry, so `orch --version` loads it too: it takes Node's modules with
 * `process.getBuiltinModule` (an ES import of one builds its whole export list), and `node:zlib` only when a
 * checksum is made. The checksum is a CRC-32: it is there to tell a damaged file, and `node:crypto` (for a SHA-1)
 * costs a process about 3 ms to load, which `orch status` (dist/views.cjs) would pay for it alone.
 */
const { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } = process.getBuiltinModule("node:fs")
const { createRequire } = process.getBuiltinModule("node:module")
const { homedir } = process.getBuiltinModule("node:os")
const { basename, isAbsolute, join } = process.getBuiltinModule("node:path")
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule("node:url")
const { Script } = process.getBuiltinModule("node:vm")

/** What the bundle exports: `main` runs a command line to its exit. */
export interface CommandTree {
  readonly main: (argv: ReadonlyArray<string>) => void
}

const MAGIC = "orch-code-cache-3"

const checksum = (data: Buffer) => process.getBuiltinModule("node:zlib").crc32(data).toString(16)

/** The Node a cache is made by and for: `v24.11.0-x64`. */
export const thisRuntime = `${process.version}-${process.arch}`

/**
 * `<magic> <bundle hash> <runtime> <CRC-32 of the payload>\n<payload>`, so a stale, foreign or damaged file is told
 * apart cheaply.
 */
export const encodeCache = (bundleHash: string, runtime: string, payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${MAGIC} ${bundleHash} ${runtime} ${checksum(payload)}\n`), payload])

/** The V8 cache data in `file` when it was made for `bundleHash` by `runtime` and is intact; otherwise undefined. */
export const decodeCache = (file: Buffer, bundleHash: string, runtime: string): Buffer | undefined => {
  const end = file.indexOf(10)
  if (end < 0 || end > 200) return undefined
  const [magic, hash, madeBy, sum] = file.subarray(0, end).toString("latin1").split(" ")
  if (magic !== MAGIC || hash !== bundleHash || madeBy !== runtime) return undefined
  const payload = file.subarray(end + 1)
  return checksum(payload) === sum ? payload : undefined
}

const readCache = (path: string, bundleHash: string): Buffer | undefined => {
  try {
    return decodeCache(readFileSync(path), bundleHash, thisRuntime)
  } catch {
    return undefined
  }
}

/**
 * The user's cache directory for orch (XDG: `$XDG_CACHE_HOME`, which the XDG spec says to ignore unless absolute,
 * else `~/.cache`), or undefined when there is no home to put it in.
 */
const userCacheDir = (env: NodeJS.ProcessEnv): string | undefined => {
  const xdg = env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined
  const base = xdg ?? (env.HOME || homedir() ? join(env.HOME || homedir(), ".cache") : undefined)
  return base === undefined ? undefined : join(base, "orch")
}

/**
 * Writes the cache `make` gives to `path` atomically and removes the caches of other versions of the same bundle
 * beside it. The file is opened first, so where nothing can be written no time goes into making the cache. Errors
 * are ignored.
 */
const writeCache = (path: string, dir: string, name: string, prefix: string, make: () => Buffer) => {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    mkdirSync(dir, { recursive: true })
    const fd = openSync(tmp, "w")
    try {
      writeSync(fd, make())
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    for (const file of readdirSync(dir)) {
      if (file.startsWith(`${name}-`) && !file.startsWith(prefix)) rmSync(join(dir, file), { force: true })
    }
  } catch {
    try {
      rmSync(tmp, { force: true })
    } catch {}
  }
}

/**
 * Loads the bundle at `bundleUrl` (whose content hash is `bundleHash`). The source is wrapped as Node wraps a
 * CommonJS module, plus `__orchImportMetaUrl`, which the build puts where the sources say `import.meta.url`, and
 * `__orchImport`, Node's `import()` for plugin modules (src/plugins/loader.ts): a vm script cannot import itself.
 */
export const loadCommandTree = (bundleUrl: URL, bundleHash: string, env: NodeJS.ProcessEnv = process.env): CommandTree => {
  const filename = fileURLToPath(bundleUrl)
  const source = readFileSync(filename, "utf8")
  const wrapped = `(function (exports, require, module, __filename, __dirname, __orchImportMetaUrl, __orchImport) {${source}\n})`
  const userDir = userCacheDir(env)
  // Each bundle's user caches are named after it (`cli-…`, `views-…`), so one bundle's never replaces another's.
  const name = basename(filename, ".cjs")
  const prefix = `${name}-${bundleHash}-`
  const userFile = userDir === undefined ? undefined : join(userDir, `${prefix}${thisRuntime}.cache`)
  const candidates = [userFile, `${filename}.cache`].filter((path): path is string => path !== undefined)
  const compile = (cachedData: Buffer | undefined) => new Script(wrapped, { filename, ...(cachedData === undefined ? {} : { cachedData }) })
  let script: InstanceType<typeof Script> | undefined
  for (const path of candidates) {
    const cachedData = readCache(path, bundleHash)
    if (cachedData === undefined) continue
    const attempt = compile(cachedData)
    if (!attempt.cachedDataRejected) {
      script = attempt
      break
    }
  }
  if (script === undefined) {
    const fresh = compile(undefined)
    script = fresh
    // Made as the process exits, so the cache holds the functions this command compiled, not only the top level.
    if (userDir !== undefined && userFile !== undefined) {
      process.once("exit", () => writeCache(userFile, userDir, name, prefix, () => encodeCache(bundleHash, thisRuntime, fresh.createCachedData())))
    }
  }
  const module = { exports: {} as CommandTree }
  const run = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  const importModule = (specifier: string) => import(specifier)
  run(module.exports, createRequire(filename), module, filename, join(filename, ".."), pathToFileURL(filename).href, importModule)
  return module.exports
}
