/**
 * The failure matrix: every user-facing command, run as a user would (the built CLI, a fresh HOME), in the
 * situations a user meets: no config, a config with a YAML or a schema error, a supervisor that was killed, one
 * left a zombie, one that left only its files, an unknown project or session, an ended session, a missing agent,
 * no tmux, a data directory that cannot be written, and each port in use. Each run must exit with the right code
 * and say what happened in one line (or a few short ones) of plain words: no internal error class, no tagged
 * value, no logger prefix, no stack frame, no "unexpected error".
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { delimiter, dirname, join } from "node:path"
import { stringify } from "yaml"
import { nodeCheck } from "../../src/cli/doctor-run.ts"
import { NODE_ENGINES } from "../../src/version.ts"
import { ORCH_BIN, type OrchRun, runOrchAsync } from "../support/cli.ts"
import { eventually, processGone } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { makeRepo } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"
import { procState, underNonReapingParent } from "../support/zombie.ts"

/** What must never reach a user, and what it is. */
const LEAKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:[A-Z][a-z]+)+(?:Error|Exception)\b/, "an internal error class"],
  [/\b[A-Z][a-z]+(?:[A-Z][a-z]+)+: /, "an internal tag before a colon"],
  [/^\s*(?:orch: )?Error: /m, "a raw Error"],
  [/"_tag"/, "a tagged value"],
  [/\[\d{2}:\d{2}:\d{2}(?:\.\d+)?\]|\b(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(#\d+\)/, "a logger prefix"],
  [/^\s+at .+:\d+:\d+\)?$/m, "a stack frame"],
  [/unexpected error/, "a defect"]
]

describe("what counts as a leak", () => {
  it.each([
    "orch: SocketOpenError: An error occurred during Open",
    "orch: ServeError",
    "fail  agent coding-agent (claude): cannot run it: NotFound: ChildProcess.spawn (claude --version)",
    "[18:16:44.000] WARN (#6): desktop notifications are off",
    "Error: boom\n    at Object.<anonymous> (/x/y.js:1:7)",
    "orch: unexpected error: boom (set ORCH_DEBUG=1 for details)",
    "{\"_tag\":\"RemoteError\"}"
  ])("%s", (text) => assert.isTrue(LEAKS.some(([pattern]) => pattern.test(text))))
  it.each([
    "orch: cannot listen on 127.0.0.1:3000 (port): the port is in use by another program; set `port:` in orchestrator.yaml to a free port",
    "orch: no project \"nope\" in the config (projects: app)",
    "orch: No config file found: nothing at /x/orchestrator.yaml; create one with `orch init`, or point ORCH_CONFIG_PATH at one",
    "fail  agent coding-agent (claude): claude is not on PATH; install Claude Code (npm install -g @anthropic-ai/claude-code), or set agentConfig.command of project app to its path",
    "orch: /x/orchestrator.yaml:2:3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]"
  ])("not: %s", (text) => assert.isFalse(LEAKS.some(([pattern]) => pattern.test(text))))
})

interface Expect {
  readonly code: number
  /** Something the output must say (stdout and stderr together). */
  readonly says?: RegExp
}
type Row = readonly [args: ReadonlyArray<string>, expect: Expect, env?: Record<string, string>]

/** Everything wrong with one run, each as a line naming the command. */
const judge = (args: ReadonlyArray<string>, run: OrchRun, expect: Expect): Array<string> => {
  const problems: Array<string> = []
  const output = `${run.stdout}${run.stderr}`
  if (run.code !== expect.code) problems.push(`exit ${run.code}, expected ${expect.code}`)
  for (const [pattern, what] of LEAKS) if (pattern.test(output)) problems.push(`shows ${what}`)
  const lines = run.stderr.split("\n").filter((line) => line.trim() !== "")
  if (lines.length > 3) problems.push(`${lines.length} lines on stderr`)
  if (run.code !== 0 && lines.length === 0) problems.push("fails without a word on stderr")
  if (expect.says !== undefined && !expect.says.test(output)) problems.push(`does not say ${expect.says}`)
  return problems.map((problem) =>
    `orch ${args.join(" ")}: ${problem}\n      stdout: ${run.stdout.trim().split("\n").slice(0, 4).join(" | ")}\n      stderr: ${run.stderr.trim()}`
  )
}

type Orch = (args: ReadonlyArray<string>, env?: Record<string, string>) => Effect.Effect<OrchRun>

/** Runs the rows (a few at a time, or one after another when they build on each other) and fails with every problem at once. */
const matrix = (orch: Orch, rows: ReadonlyArray<Row>, options: { readonly inOrder?: boolean } = {}) =>
  Effect.forEach(rows, ([args, expect, env]) => Effect.map(orch(args, env), (run) => judge(args, run, expect)), { concurrency: options.inOrder ? 1 : 3 }).pipe(
    Effect.map((problems) => assert.deepStrictEqual(problems.flat(), []))
  )

const NO_CONFIG = /No config file found/
const ALL_CONFIG_COMMANDS = (says: RegExp): ReadonlyArray<Row> => [
  [["start", "app", "--no-open"], { code: 2, says }],
  [["start", "app", "--detach", "--no-open"], { code: 2, says }],
  [["spawn", "app", "1"], { code: 2, says }],
  [["batch-spawn", "app", "1", "2"], { code: 2, says }],
  // A command that names a session finds its config from the session's record: with no such session, it says so.
  [["send", "app-1", "hello"], { code: 1, says: /^orch: no session app-1$/m }],
  // Like status, ls lists without a config (one with an error is said in a warning: below).
  [["session", "ls"], { code: 0 }],
  [["session", "kill", "app-1"], { code: 1, says: /^orch: no session app-1$/m }],
  [["session", "restore", "app-1"], { code: 1, says: /^orch: no session app-1$/m }],
  [["session", "rm", "app-1"], { code: 1, says: /^orch: no session app-1$/m }],
  [["attach", "app-1"], { code: 1, says: /^orch: no session app-1$/m }],
  [["report", "active"], { code: 2, says: /\$ORCH_SESSION_ID is not set/ }],
  [["session", "cleanup"], { code: 2, says }],
  [["notify", "hello"], { code: 2, says }],
  [["config", "validate"], { code: 2, says }],
  [["config", "show"], { code: 2, says }],
  [["doctor", "--no-canary"], { code: 1, says: /^fail {2}config: /m }],
  [["status"], { code: 0 }],
  [["notifications"], { code: 0 }],
  [["stop"], { code: 0, says: /^No supervisor is running\.$/m }],
  [["stop", "--kill-sessions"], { code: 0, says: /^No supervisor is running; 0 session\(s\) killed$/m }]
]

const supervisorPid = (dataDir: string) => (JSON.parse(readFileSync(join(dataDir, "supervisor.json"), "utf8")) as { pid: number }).pid

/** A listener on `port` for the test's scope. */
const occupy = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      const server = createServer().listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  )

/** PATH without any directory that holds `program`. */
const pathWithout = (program: string) =>
  (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !existsSync(join(dir, program))).join(delimiter)

/** A PATH of one directory linking every program of PATH except `program` (for a program that lives beside others, like tmux in /usr/bin). */
const pathDirWithout = (dir: string, program: string) => {
  mkdirSync(dir, { recursive: true })
  for (const source of [dirname(process.execPath), ...(process.env.PATH ?? "").split(delimiter)]) {
    if (source === "" || !existsSync(source)) continue
    for (const name of readdirSync(source)) {
      if (name === program || existsSync(join(dir, name))) continue
      symlinkSync(join(source, name), join(dir, name))
    }
  }
  return dir
}

describe("failure messages (the built CLI, as a user meets them)", () => {
  it.live("no config anywhere", () =>
    Effect.gen(function*() {
      const cwd = yield* tempDir("orch-nocfg-")
      const orch: Orch = (args, env = {}) => runOrchAsync(args, { cwd, env: { HOME: join(cwd, "home"), ...env } })
      yield* matrix(orch, [...ALL_CONFIG_COMMANDS(NO_CONFIG), [["config", "schema"], { code: 0 }], [["session", "prune"], { code: 0 }]])
    }), 60_000)

  it.live("a config with a YAML syntax error", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      writeFileSync(s.config, "projects:\n  app: [\n    repo: acme/app\n")
      const says = /orchestrator\.yaml:\d+:\d+: YAML syntax error/
      yield* matrix(s.orch, [
        ...ALL_CONFIG_COMMANDS(says),
        [["session", "prune"], { code: 2, says }],
        [["session", "ls"], {
          code: 0,
          says: /^orch: warning: the config cannot be used \(YAML syntax error: .*orchestrator\.yaml:\d+:\d+\); sessions are listed without it/m
        }]
      ])
    }), 60_000)

  it.live("a config with a schema error", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const config = readFileSync(s.config, "utf8").replace(/^port: \d+$/m, "port: lots")
      writeFileSync(s.config, config)
      const says = /Validation error at "port"/
      yield* matrix(s.orch, [
        ...ALL_CONFIG_COMMANDS(says),
        [["session", "prune"], { code: 2, says }],
        [["session", "ls"], { code: 0, says: /^orch: warning: the config cannot be used \(Validation error at "port": /m }]
      ])
    }), 60_000)

  it.live("a supervisor killed with kill -9: every command carries on without it; stop clears its files; start takes over", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const pid = supervisorPid(s.dataDir)
      process.kill(pid, "SIGKILL")
      yield* eventually("the supervisor to die", () => processGone(pid) || procState(pid) === "Z")
      yield* matrix(s.orch, [
        [["spawn", "app", "1"], { code: 0, says: /^app-1$/m }],
        [["send", "app-1", "hello"], { code: 0, says: /^delivered to app-1$/m }],
        [["batch-spawn", "app", "2"], { code: 0, says: /created 1, skipped 0, failed 0/ }],
        [["session", "ls"], { code: 0, says: /app-2/ }],
        [["session", "kill", "app-2"], { code: 0, says: /^killed app-2/m }],
        [["session", "restore", "app-2"], { code: 0, says: /^restored app-2$/m }],
        [["session", "cleanup", "--dry-run"], { code: 0 }],
        [["spawn", "app", "--task", "tidy the readme"], { code: 0, says: /^app-3$/m }],
        [["attach", "app-1"], { code: 2, says: /^orch: attach needs a terminal, and this is not one \(no TTY\)/m }],
        [["report", "active", "--note", "reading the code"], { code: 0 }, { ORCH_SESSION_ID: "app-1" }],
        [["session", "kill", "app-3"], { code: 0 }],
        [["session", "rm", "app-3"], { code: 0, says: /^removed app-3/m }],
        [["session", "prune", "--dry-run"], { code: 0 }],
        [["status"], { code: 0, says: /app-1/ }],
        [["notify", "hello"], { code: 0 }],
        [["notifications"], { code: 0 }],
        [["doctor", "--no-canary"], { code: 0, says: /^ok {4}supervisor: not running \(a dead one left its files/m }],
        [["stop"], { code: 0, says: new RegExp(`^No supervisor is running \\(pid ${pid} had died; removed the files it left\\)\\.$`, "m") }],
        [["start", "app", "--detach", "--no-open"], { code: 0, says: /^orchestrator session app-orchestrator is already running for app$/m }],
        [["stop"], { code: 0, says: /^supervisor stopped/m }]
      ], { inOrder: true })
    }), 90_000)

  it.live("a supervisor left a zombie (its parent never reaps it): the same as dead", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const log = join(s.root, "foreground.log")
      const { pid } = yield* underNonReapingParent(
        `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(ORCH_BIN)} start app --no-open > ${JSON.stringify(log)} 2>&1`,
        { ...s.env },
        s.root
      )
      yield* eventually("the supervisor to be ready", () => existsSync(log) && readFileSync(log, "utf8").includes("stops the supervisor"), 20_000)
      process.kill(pid, "SIGKILL")
      yield* eventually("a zombie", () => procState(pid) === "Z")
      yield* matrix(s.orch, [
        [["spawn", "app", "1"], { code: 0, says: /^app-1$/m }],
        [["send", "app-1", "hello"], { code: 0 }],
        [["session", "kill", "app-1"], { code: 0 }],
        [["doctor", "--no-canary"], { code: 0 }],
        [["stop"], { code: 0, says: /had died; removed the files it left/ }],
        [["start", "app", "--detach", "--no-open"], { code: 0, says: /^supervisor started \(pid \d+\)$/m }],
        [["stop"], { code: 0, says: /^supervisor stopped/m }]
      ], { inOrder: true })
    }), 90_000)

  it.live("a stale socket file and supervisor.json with no process behind them", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const socket = join(s.dataDir, "orch.sock")
      const child = spawn(process.execPath, [
        "-e",
        `require("fs").mkdirSync(${JSON.stringify(s.dataDir)},{recursive:true});require("net").createServer().listen(${JSON.stringify(socket)})`
      ])
      yield* eventually("the socket", () => existsSync(socket))
      writeFileSync(
        join(s.dataDir, "supervisor.json"),
        JSON.stringify({ pid: child.pid, socket, startedAt: "2026-01-01T00:00:00.000Z", version: "0.0.1", dashboardUrl: "http://127.0.0.1:1/" })
      )
      child.kill("SIGKILL")
      yield* eventually("the process to be gone", () => processGone(child.pid!))
      yield* matrix(s.orch, [
        [["spawn", "app", "1"], { code: 0, says: /^app-1$/m }],
        [["send", "app-1", "hello"], { code: 0 }],
        [["batch-spawn", "app", "1"], { code: 0, says: /skipped 1/ }],
        [["session", "cleanup", "--dry-run"], { code: 0 }],
        [["doctor", "--no-canary"], { code: 0 }],
        [["stop"], { code: 0, says: /had died; removed the files it left/ }]
      ], { inOrder: true })
    }), 60_000)

  it.live("an unknown project, an unknown session and an ended one, without a supervisor and through one", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const rows = (where: string, serves: string): ReadonlyArray<Row> => [
        [["spawn", "nope", "1"], { code: 2, says: new RegExp(`^orch: no project "nope" in the config ${serves}${s.config} \\(projects: app\\)`, "m") }],
        [["batch-spawn", "nope", "1"], { code: 2, says: /no project "nope"/ }],
        [["start", "nope", "--no-open"], { code: 2, says: /no project "nope"/ }],
        [["start", "nope", "--detach", "--no-open"], { code: 2, says: /no project "nope"/ }],
        [["send", "app-9", "hello"], { code: 1, says: /^orch: no session app-9$/m }],
        [["session", "kill", "app-9"], { code: 1, says: /^orch: no session app-9$/m }],
        [["session", "restore", "app-9"], { code: 1, says: /^orch: no session app-9$/m }],
        [["session", "rm", "app-9"], { code: 1, says: /^orch: no session app-9$/m }],
        [["attach", "app-9"], { code: 1, says: /^orch: no session app-9$/m }],
        [["report", "active"], { code: 2, says: /\$ORCH_SESSION_ID names app-9, which has no record/ }, { ORCH_SESSION_ID: "app-9" }],
        [["send", where, "hello"], { code: 1, says: new RegExp(`session ${where} is not running \\(killed\\)`) }],
        [["session", "kill", where], { code: 0, says: new RegExp(`^${where} was already killed \\(at [^)]+\\); nothing to do$`, "m") }]
      ]
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      yield* matrix(s.orch, rows("app-1", ""))
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "2"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "kill", "app-2"])).code, 0)
      yield* matrix(s.orch, rows("app-2", "the running supervisor serves "))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)

  it.live("the agent's program is missing", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { agent: "coding-agent", agentConfig: {} } })
      const orch: Orch = (args, env = {}) => s.orch(args, { PATH: pathWithout("claude"), ...env })
      yield* matrix(orch, [
        [["spawn", "app", "1"], { code: 1, says: /claude/ }],
        [["batch-spawn", "app", "2"], { code: 1, says: /claude/ }],
        [["start", "app", "--no-open"], { code: 1, says: /claude/ }],
        [["start", "app", "--detach", "--no-open"], { code: 1, says: /claude/ }],
        [["doctor", "--no-canary"], { code: 1, says: /^fail {2}agent coding-agent \(claude\): claude is not on PATH; install Claude Code/m }]
      ], { inOrder: true })
    }), 60_000)

  it.live("no tmux on PATH", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const path = pathDirWithout(join(s.root, "bin-without-tmux"), "tmux")
      const orch: Orch = (args, env = {}) => s.orch(args, { PATH: path, ...env })
      yield* matrix(orch, [
        [["spawn", "app", "1"], { code: 1, says: /tmux is not installed \(not found on PATH\)/ }],
        [["batch-spawn", "app", "2"], { code: 1, says: /tmux is not installed \(not found on PATH\)/ }],
        [["start", "app", "--no-open"], { code: 1, says: /tmux is not installed \(not found on PATH\)/ }],
        [["start", "app", "--detach", "--no-open"], { code: 1, says: /tmux is not installed \(not found on PATH\)/ }],
        [["session", "ls"], { code: 0 }],
        [["doctor", "--no-canary"], { code: 1, says: /^fail {2}tmux: tmux is not on PATH/m }],
        [["status"], { code: 0 }]
      ], { inOrder: true })
    }), 60_000)

  it.live("the data directory cannot be written (a file stands where it must be)", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const home = join(s.root, "home-blocked")
      mkdirSync(home, { recursive: true })
      writeFileSync(join(home, ".orchestrator"), "not a directory\n")
      const orch: Orch = (args, env = {}) => s.orch(args, { HOME: home, ...env })
      const says = new RegExp(`${join(home, ".orchestrator")}`)
      yield* matrix(orch, [
        [["spawn", "app", "1"], { code: 1, says }],
        [["batch-spawn", "app", "2"], { code: 1, says }],
        [["send", "app-1", "hello"], { code: 1, says: /^orch: no session app-1$/m }],
        [["session", "kill", "app-1"], { code: 1, says: /^orch: no session app-1$/m }],
        [["session", "cleanup"], { code: 0, says: /^Nothing to clean up\.$/m }],
        [["start", "app", "--no-open"], { code: 1, says: /but that is not a directory; move it away, or set ORCH_HOME/ }],
        [["start", "app", "--detach", "--no-open"], { code: 1, says: /but that is not a directory; move it away, or set ORCH_HOME/ }],
        [["status"], { code: 0 }],
        [["notifications"], { code: 1, says }],
        [["notify", "hello"], { code: 1, says }],
        [["stop"], { code: 0, says: /^No supervisor is running\.$/m }],
        [["doctor", "--no-canary"], {
          code: 1,
          says: /^fail {2}data: orch keeps its state in .*, but that is not a directory; move it away, or set ORCH_HOME/m
        }]
      ], { inOrder: true })
    }), 60_000)

  for (const option of ["port", "terminalPort", "directTerminalPort"] as const) {
    it.live(`${option} in use by another program`, () =>
      Effect.gen(function*() {
        const s = yield* sandbox()
        const port = s[option]
        yield* occupy(port)
        const says = new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(${option}\\): the port is in use by another program; set \`${option}:\``)
        yield* matrix(s.orch, [
          [["start", "app", "--no-open"], { code: 1, says }],
          [["start", "app", "--detach", "--no-open"], { code: 1, says }],
          [["doctor", "--no-canary"], { code: 1, says: new RegExp(`^fail {2}${option}: 127\\.0\\.0\\.1:${port}: the port is in use by another program`, "m") }],
          ...(option === "port"
            ? [[["demo", "--headless", "--port", String(port)], { code: 1, says: new RegExp(`cannot use --port ${port}: the port is in use`) }] as const]
            : [])
        ])
      }), 60_000)
  }

  it.live("usage mistakes", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      yield* matrix(s.orch, [
        [["spawn"], { code: 2 }],
        [["send", "app-1"], { code: 2, says: /nothing to send/ }],
        [["send", "app-1", "--file", join(s.root, "nope.txt")], {
          code: 2,
          says: new RegExp(`^orch: nothing sent: ${join(s.root, "nope.txt")} does not exist$`, "m")
        }],
        [["send", "app-1", "--file", s.root], { code: 2, says: new RegExp(`^orch: nothing sent: ${s.root} is a directory, not a file$`, "m") }],
        [["config", "validate", join(s.root, "missing.yaml")], {
          code: 2,
          says: new RegExp(`^orch: Cannot read the config: ${join(s.root, "missing.yaml")} does not exist$`, "m")
        }],
        [["notify", "--notifier", "nope", "hello"], { code: 2, says: /no notifier "nope"/ }],
        [["session", "frobnicate"], { code: 2 }],
        [["frobnicate"], { code: 2 }],
        [["init"], { code: 1, says: /^orch: \S+ is not in a git repository, and orch init writes a project for the repository it runs in; run it inside one/m }]
      ])
    }), 60_000)
})

/** Node binaries on this machine older than package.json's `engines` (the one running the tests is not). */
const olderNode = ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"].find((node) => {
  try {
    const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
    return nodeCheck(version, NODE_ENGINES).level === "fail"
  } catch {
    return false
  }
})

describe("what a new user met (the default path: a fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable)", () => {
  it.live("one supervisor, two repositories each with its own config: the other one's project is not in the config it serves", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const appConfig = s.writeRepoConfig()
      const web = makeRepo(s.root, "web")
      writeFileSync(join(web.path, "orchestrator.yaml"), stringify({ ...s.ports, projects: { web: s.project({ repo: "acme/web", path: web.path }) } }))
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"], { cwd: s.repo.path })).code, 0)
      const says = new RegExp(
        `^orch: no project "web" in the config the running supervisor serves ${appConfig} \\(projects: app\\); add the project to ${appConfig}: ` +
          "the supervisor applies a saved change at once, without a restart$",
        "m"
      )
      const inWeb: Orch = (args, env = {}) => s.orch(args, { cwd: web.path, env })
      yield* matrix(inWeb, [
        [["spawn", "web", "1"], { code: 2, says }],
        [["batch-spawn", "web", "1"], { code: 2, says }],
        [["start", "web", "--no-open"], { code: 2, says }]
      ], { inOrder: true })
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live("spawning an issue that already has a live session says which and what to do, without a supervisor and through one", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const orch: Orch = (args, env = {}) => s.orch(args, { cwd: s.repo.path, env })
      const taken = (sessionId: string) => ({
        code: 1,
        says: new RegExp(`^orch: issue 1 already has a live session ${sessionId}: \`orch send ${sessionId} …\` or \`orch attach ${sessionId}\`$`, "m")
      })
      yield* matrix(orch, [
        [["spawn", "app", "1"], { code: 0, says: /^app-1$/m }],
        [["spawn", "app", "1"], taken("app-1")],
        [["spawn", "app", "#1"], taken("app-1")],
        [["session", "kill", "app-1"], { code: 0, says: /^killed app-1$/m }],
        [["session", "kill", "app-1"], { code: 0, says: /^app-1 was already killed \(at [^)]+\); nothing to do$/m }],
        [["spawn", "app", "1"], { code: 0, says: /^app-2$/m }],
        [["start", "app", "--detach", "--no-open"], { code: 0 }],
        [["spawn", "app", "1"], taken("app-2")],
        [["spawn", "app", "1", "--json"], taken("app-2")],
        [["session", "kill", "app-2"], { code: 0, says: /^killed app-2$/m }],
        [["session", "kill", "app-2"], { code: 0, says: /^app-2 was already killed \(at [^)]+\); nothing to do$/m }],
        [["stop"], { code: 0 }]
      ], { inOrder: true })
      assert.lengthOf(s.events().filter((e) => e.type === "session.killed"), 2, "a second kill records nothing")
    }), 90_000)

  it.live("Ctrl-C on a foreground `orch start` says the supervisor stopped and the sessions keep running", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const child = spawn(process.execPath, [ORCH_BIN, "start", "app", "--no-open"], {
        cwd: s.repo.path,
        env: { PATH: process.env.PATH ?? "", ...s.env },
        stdio: "pipe"
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
      yield* eventually("the supervisor to be ready", () => stdout.includes("stops the supervisor"), 30_000)
      child.kill("SIGINT")
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(stderr, "")
      assert.isTrue(
        stdout.endsWith(
          "Ctrl-C (or `orch stop`) stops the supervisor; agent sessions keep running unless it is `orch stop --kill-sessions`.\nsupervisor stopped; agent sessions keep running (a new `orch start` adopts them)\n"
        ),
        stdout
      )
      assert.strictEqual(code, 130)
      assert.deepStrictEqual(s.sessions(), ["app-orchestrator"])
      assert.isFalse(existsSync(join(s.dataDir, "supervisor.json")))
    }), 60_000)

  it.live.skipIf(olderNode === undefined)(
    `doctor on a Node older than engines (${NODE_ENGINES}) fails that check, naming the version needed`,
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig()
        const version = execFileSync(olderNode!, ["--version"], { encoding: "utf8" }).trim()
        const run = spawnSync(olderNode!, [ORCH_BIN, "doctor", "--no-canary"], {
          cwd: s.repo.path,
          env: { PATH: process.env.PATH ?? "", ...s.env },
          encoding: "utf8"
        })
        const problems = judge(["doctor", "--no-canary"], { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr }, {
          code: 1,
          says: new RegExp(
            `^fail {2}node: ${version.replaceAll(".", "\\.")} is older than orch supports \\(>=22\\.19\\); install Node 22\\.19 or newer and run orch with it$`,
            "m"
          )
        })
        assert.deepStrictEqual(problems, [])
      }),
    60_000
  )
})

describe("the Node check", () => {
  it.each([
    ["v22.19.0", ">=22.19", "ok"],
    ["v22.20.1", ">=22.19", "ok"],
    ["v24.1.0", ">=22.19", "ok"],
    ["v22.18.9", ">=22.19", "fail"],
    ["v20.20.2", ">=22.19", "fail"],
    ["v22.0.0", ">=22", "ok"],
    ["v21.9.0", ">=22", "fail"],
    ["v20.0.0", "^20 || ^22", "ok"]
  ])("%s against %s: %s", (running, engines, level) => assert.strictEqual(nodeCheck(running, engines).level, level))
  it("names the version needed", () =>
    assert.strictEqual(
      nodeCheck("v20.20.2", ">=22.19").detail,
      "v20.20.2 is older than orch supports (>=22.19); install Node 22.19 or newer and run orch with it"
    ))
})
