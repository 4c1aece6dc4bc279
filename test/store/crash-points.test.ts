/**
 * Crash points (src/store/crash-points.ts): a process's role from its command line, the ORCH_CRASH_AT spec, a real
 * process that dies at the point asked for and traces every point it passed, and the variables kept from agents.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import { agentEnvironment } from "../../src/sessions/agent-env.ts"
import { crashRole, parseCrashAt } from "../../src/store/crash-points.ts"
import { withHost } from "../support/host.ts"

describe("crashRole", () => {
  it.each([
    [["start", "app", "--no-open"], "supervisor"],
    [["start", "app"], "supervisor"],
    [["start", "app", "--detach", "--no-open"], "cli:start"],
    [["queue", "add", "app", "1", "2"], "cli:queue add"],
    [["session", "kill", "app-1"], "cli:session kill"],
    [["spawn", "app", "7"], "cli:spawn"],
    [["batch-spawn", "app", "1"], "cli:batch-spawn"],
    [["stop", "--kill-sessions"], "cli:stop"],
    [[], "cli:"]
  ])("%j → %s", (argv, role) => assert.strictEqual(crashRole(argv), role))
})

describe("parseCrashAt", () => {
  it.each([
    ["supervisor:12:SIGKILL", { role: "supervisor", n: 12, signal: "SIGKILL" }],
    ["cli:queue:3:SIGTERM", { role: "cli:queue", n: 3, signal: "SIGTERM" }],
    ["cli:session kill:1:SIGINT", { role: "cli:session kill", n: 1, signal: "SIGINT" }],
    ["supervisor:0:SIGKILL", undefined],
    ["supervisor:x:SIGKILL", undefined],
    ["supervisor:3:SIGFOO", undefined],
    [":3:SIGKILL", undefined],
    ["", undefined],
    [undefined, undefined]
  ])("%s", (spec, expected) => assert.deepStrictEqual(parseCrashAt(spec), expected))
})

describe("a process with ORCH_CRASH_AT", () => {
  const module = resolve("src/store/crash-points.ts")
  const run = (argv: ReadonlyArray<string>, crashAt: string) => {
    const dir = mkdtempSync(join(tmpdir(), "orch-crash-points-"))
    try {
      const script = join(dir, "steps.mjs")
      const trace = join(dir, "trace.jsonl")
      writeFileSync(
        script,
        `import { crashPoint } from ${JSON.stringify(module)}\nfor (const step of ["a", "b", "c"]) crashPoint(step)\nconsole.log("went on")\n`
      )
      const result = spawnSync(process.execPath, [script, ...argv], {
        env: { PATH: process.env.PATH ?? "", ORCH_CRASH_AT: crashAt, ORCH_CRASH_TRACE: trace },
        encoding: "utf8"
      })
      return { result, trace: readFileSync(trace, "utf8").trim().split("\n").map((line) => JSON.parse(line)) }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it("dies with SIGKILL at its n-th point, the point traced with the signal", () => {
    const { result, trace } = run(["queue", "add", "app", "1"], "cli:queue:2:SIGKILL")
    assert.strictEqual(result.signal, "SIGKILL")
    assert.strictEqual(result.stdout, "")
    assert.deepStrictEqual(trace.map((p) => [p.role, p.n, p.label, p.signal]), [["cli:queue add", 1, "a", undefined], ["cli:queue add", 2, "b", "SIGKILL"]])
    assert.strictEqual(trace[0].pid, result.pid)
  })

  it("a process of another role only traces its points", () => {
    const { result, trace } = run(["status"], "cli:queue:2:SIGKILL")
    assert.strictEqual(result.status, 0)
    assert.strictEqual(result.stdout, "went on\n")
    assert.deepStrictEqual(trace.map((p) => p.label), ["a", "b", "c"])
  })
})

describe("agentEnvironment", () => {
  it.effect("keeps the crash explorer's variables from the agent", () =>
    Effect.gen(function*() {
      const config = yield* validateConfig({ projects: { app: { repo: "acme/app", path: "/repo", agent: "command", tracker: "none" } } }).pipe(
        withHost({ cwd: "/", homeDir: "/home/tester" })
      )
      const project = config.projects.app!
      const context = {
        sessionId: "app-1",
        project,
        issueId: "1",
        branch: "feat/1",
        workspacePath: "/w",
        promptFile: "/d/prompt.md",
        systemPromptFile: "/d/system-prompt.md",
        task: "",
        activityFile: "/d/activity.jsonl",
        conversationId: "c"
      }
      const caller = { ORCH_CRASH_AT: "supervisor:3:SIGKILL", ORCH_CRASH_TRACE: "/t", KEEP: "1" }
      const { env, unsetEnv } = agentEnvironment(project, context, {}, caller)
      assert.includeMembers([...unsetEnv], ["ORCH_CRASH_AT", "ORCH_CRASH_TRACE"])
      assert.strictEqual(env.ORCH_CRASH_AT, undefined)
      assert.strictEqual(env.ORCH_CRASH_TRACE, undefined)
      assert.strictEqual(env.KEEP, "1")
    }))
})
