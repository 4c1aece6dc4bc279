import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Script } from "node:vm"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { decodeCache, encodeCache, thisRuntime } from "../../src/cli/code-cache.ts"

describe("code cache files", () => {
  const payload = Buffer.from("v8 cache bytes \n with a newline")
  const file = encodeCache("abc123", "v24.11.0-x64", payload)

  it.each([
    ["intact, for this bundle and this Node", file, "abc123", "v24.11.0-x64", payload],
    ["for another bundle", file, "def456", "v24.11.0-x64", undefined],
    ["made by another Node version", file, "abc123", "v20.20.2-x64", undefined],
    ["made on another architecture", file, "abc123", "v24.11.0-arm64", undefined],
    ["truncated", file.subarray(0, file.length - 3), "abc123", "v24.11.0-x64", undefined],
    ["with a damaged byte", Buffer.concat([file.subarray(0, file.length - 1), Buffer.from("X")]), "abc123", "v24.11.0-x64", undefined],
    ["not a cache file at all", Buffer.from("garbage"), "abc123", "v24.11.0-x64", undefined],
    ["of the first format (no Node named)", Buffer.from("orch-code-cache-1 abc123 0123abcd\nbytes"), "abc123", "v24.11.0-x64", undefined],
    [
      "of the second format (a SHA-1)",
      Buffer.from("orch-code-cache-2 abc123 v24.11.0-x64 da39a3ee5e6b4b0d3255bfef95601890afd80709\n"),
      "abc123",
      "v24.11.0-x64",
      undefined
    ],
    ["empty", Buffer.alloc(0), "abc123", "v24.11.0-x64", undefined]
  ])("%s", (_label, bytes, hash, runtime, expected) => {
    expect(decodeCache(bytes, hash, runtime)).toEqual(expected)
  })
})

// The built CLI, copied to a temp dir so its cache can be damaged without touching dist/ (other tests use it).
describe("the built CLI and its code cache", () => {
  let root: string
  let dist: string
  let cacheHome: string
  const userCaches = () => (existsSync(join(cacheHome, "orch")) ? readdirSync(join(cacheHome, "orch")) : [])
  const orch = (...args: Array<string>) => {
    const result = spawnSync(process.execPath, [join(dist, "orch.mjs"), ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), XDG_CACHE_HOME: cacheHome },
      encoding: "utf8"
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }
  const expectHelp = () => {
    const result = orch("--help")
    expect(result.stderr).toBe("")
    expect(result.stdout).toContain("Launch and supervise AI coding-agent sessions")
    expect(result.code).toBe(0)
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "orch-code-cache-"))
    dist = join(root, "dist")
    cacheHome = join(root, "cache")
    mkdirSync(join(dist, "chunks"), { recursive: true })
    for (const name of ["orch.mjs", "cli.cjs", "cli.cjs.cache", "views.cjs", "views.cjs.cache"]) copyFileSync(resolve("dist", name), join(dist, name))
    for (const name of readdirSync(resolve("dist/chunks")).filter((n) => n.endsWith(".mjs"))) {
      copyFileSync(resolve("dist/chunks", name), join(dist, "chunks", name))
    }
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  /** The shipped cache, intact, but saying it was made by `version` of Node. */
  const relabel = (version: string) => {
    const bytes = readFileSync(join(dist, "cli.cjs.cache"))
    const end = bytes.indexOf(10)
    const hash = bytes.subarray(0, end).toString("latin1").split(" ")[1]!
    writeFileSync(join(dist, "cli.cjs.cache"), encodeCache(hash, `${version}-${process.arch}`, bytes.subarray(end + 1)))
  }

  it("uses the cache the build made, and writes none of its own", () => {
    expectHelp()
    expect(userCaches()).toEqual([])
  })

  it.each([
    ["missing", () => rmSync(join(dist, "cli.cjs.cache"))],
    ["garbage", () => writeFileSync(join(dist, "cli.cjs.cache"), "garbage")],
    ["damaged", () => {
      const bytes = readFileSync(join(dist, "cli.cjs.cache"))
      bytes[bytes.length - 100] ^= 0xff
      writeFileSync(join(dist, "cli.cjs.cache"), bytes)
    }],
    ["refused by V8 (made for other source)", () => {
      const hash = readFileSync(join(dist, "cli.cjs.cache"), "latin1").split("\n")[0]!.split(" ")[1]!
      writeFileSync(join(dist, "cli.cjs.cache"), encodeCache(hash, thisRuntime, new Script("1 + 1").createCachedData()))
    }],
    // A cache V8 would take, labelled as another Node's: were it handed to V8, no user cache would be written.
    ["made by another Node (as on any Node but the build's)", () => relabel("v0.0.0")]
  ])("starts normally when the shipped cache is %s, then leaves a working one in the user's cache dir", (_label, spoil) => {
    spoil()
    expectHelp()
    const [made] = userCaches()
    expect(made).toMatch(new RegExp(`^cli-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))
    const written = statSync(join(cacheHome, "orch", made!)).mtimeMs
    expectHelp()
    // Taken, so not made again.
    expect(statSync(join(cacheHome, "orch", made!)).mtimeMs).toBe(written)
    expect(userCaches()).toEqual([made])
  })

  it("takes a relative XDG_CACHE_HOME for none (the XDG spec): the cache goes to ~/.cache, not the current directory", () => {
    rmSync(join(dist, "cli.cjs.cache"))
    const cwd = join(root, "work")
    mkdirSync(cwd)
    const result = spawnSync(process.execPath, [join(dist, "orch.mjs"), "--help"], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), XDG_CACHE_HOME: "relcache" },
      encoding: "utf8"
    })
    expect(result.status).toBe(0)
    expect(readdirSync(cwd)).toEqual([])
    expect(readdirSync(join(root, "home", ".cache", "orch"))).toHaveLength(1)
  })

  it("starts normally when the user's cache dir cannot be written", () => {
    rmSync(join(dist, "cli.cjs.cache"))
    writeFileSync(cacheHome, "a file where the directory would go")
    expectHelp()
  })

  // `status` and `queue ls`, plain or `--json`, run from dist/views.cjs (bin/orch.ts); every other command line from
  // the tree.
  describe("orch status and queue ls, from a bundle of their own", () => {
    const expectStatus = () => {
      const result = orch("status", "--json")
      expect(result).toEqual({ code: 0, stdout: "[]\n", stderr: "" })
    }

    it("loads none of the command tree, and uses the cache the build made for it", () => {
      rmSync(join(dist, "cli.cjs"))
      expectStatus()
      expect(orch("status").stdout).toContain("No sessions")
      expect(orch("queue", "ls")).toEqual({ code: 0, stdout: "The queue is empty. Add to it with `orch queue add <project> <issue>...`.\n", stderr: "" })
      expect(orch("queue", "ls", "--json")).toEqual({ code: 0, stdout: "[]\n", stderr: "" })
      expect(userCaches()).toEqual([])
    })

    it("leaves a cache of its own, named after its bundle, when the shipped one is damaged; the tree's stays", () => {
      const bytes = readFileSync(join(dist, "views.cjs.cache"))
      bytes[bytes.length - 100] ^= 0xff
      writeFileSync(join(dist, "views.cjs.cache"), bytes)
      rmSync(join(dist, "cli.cjs.cache"))
      expectHelp()
      expectStatus()
      const made = userCaches().sort()
      expect(made).toHaveLength(2)
      expect(made[0]).toMatch(new RegExp(`^cli-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))
      expect(made[1]).toMatch(new RegExp(`^views-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))
      expectStatus()
      expectHelp()
      expect(userCaches().sort()).toEqual(made)
    })

    it("leaves its help and its usage errors to the command tree", () => {
      const help = orch("status", "--help")
      expect(help.code).toBe(0)
      expect(help.stdout).toContain("--json")
      const misspelt = orch("status", "--jsn")
      expect(misspelt.code).toBe(2)
      expect(misspelt.stderr).toContain("Run `orch status --help` for usage.")
      const queueHelp = orch("queue", "ls", "--help")
      expect([queueHelp.code, queueHelp.stdout.includes("--json")]).toEqual([0, true])
      expect(orch("queue", "ls", "extra").code).toBe(2)
    })
  })

  it("replaces a cache left by another version of the bundle", () => {
    rmSync(join(dist, "cli.cjs.cache"))
    mkdirSync(join(cacheHome, "orch"), { recursive: true })
    writeFileSync(join(cacheHome, "orch", `cli-0000000000000000-${process.version}-${process.arch}.cache`), "old")
    expectHelp()
    expect(userCaches()).toHaveLength(1)
    expect(userCaches()[0]).not.toContain("0000000000000000")
  })
})
