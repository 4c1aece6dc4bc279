import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { attachPlan, tmuxAttachCommand } from "../../src/cli/attach-terminal.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { ORCH_BIN } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

const record = (changes: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status: "working",
  activity: "active",
  branch: "feat/1",
  workspacePath: "/w/app-1",
  runtime: { plugin: "multiplexer", id: "app-1", data: { socket: "/t/tmux-1/default" } },
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...changes
})

describe("attach plan", () => {
  it.each<[string, SessionRecord, boolean, string]>([
    ["a live tmux session", record(), true, "Tmux /t/tmux-1/default app-1"],
    ["a record from before the socket was kept", record({ runtime: { plugin: "multiplexer", id: "app-1", data: {} } }), true, "Tmux /fallback app-1"],
    [
      "a killed session",
      record({ status: "killed", runtime: null }),
      true,
      "Refuse 1 session app-1 has ended (killed), so it has no terminal; `orch session restore app-1` starts it again"
    ],
    [
      "a merged one with a stale handle",
      record({ status: "merged" }),
      true,
      "Refuse 1 session app-1 has ended (merged), so it has no terminal; `orch session restore app-1` starts it again"
    ],
    [
      "the process runtime",
      record({ runtime: { plugin: "process", id: "app-1", data: {} } }),
      true,
      "Refuse 1 session app-1 runs in the supervisor's process runtime, which has no terminal to attach to; watch and type to it on the dashboard (orch start prints its address)"
    ],
    [
      "a plugin runtime",
      record({ runtime: { plugin: "my-runtime", id: "x", data: {} } }),
      true,
      "Refuse 1 session app-1 runs in the my-runtime runtime, which orch attach cannot open; watch it on the dashboard"
    ],
    ["no terminal", record(), false, "Refuse 2 attach needs a terminal, and this is not one (no TTY); run it in a terminal, or watch app-1 on the dashboard"],
    ["on another host: through its connection", record({ host: "b" }), true, "Remote b app-1"],
    [
      "on another host, ended",
      record({ host: "b", status: "killed" }),
      true,
      "Refuse 1 session app-1 has ended (killed), so it has no terminal; `orch session restore app-1` starts it again"
    ],
    ["local, named", record({ host: "local" }), true, "Tmux /t/tmux-1/default app-1"]
  ])("%s", (_, input, terminal, expected) => {
    const plan = attachPlan(input, terminal, "/fallback")
    assert.strictEqual(
      plan._tag === "Tmux"
        ? `Tmux ${plan.socket} ${plan.target}`
        : plan._tag === "Remote"
        ? `Remote ${plan.host} ${plan.handle.id}`
        : `Refuse ${plan.exitCode} ${plan.reason}`,
      expected
    )
  })

  it.each<[string, Record<string, string>, string, boolean]>([
    ["outside tmux", { HOME: "/h" }, "attach-session", false],
    ["inside another tmux server: nested, with TMUX unset", { HOME: "/h", TMUX: "/other/sock,123,0" }, "attach-session", false],
    ["inside the session's own server: switch the client", { HOME: "/h", TMUX: "/t/sock,123,0" }, "switch-client", true]
  ])("%s", (_, env, verb, keepsTmux) => {
    const command = tmuxAttachCommand("/t/sock", "app-1", env)
    assert.deepStrictEqual(command.args, ["-S", "/t/sock", verb, "-t", "=app-1"])
    assert.strictEqual("TMUX" in command.env, keepsTmux)
    assert.strictEqual(command.env.HOME, "/h")
  })
})

describe("orch attach (real tmux, default socket, from another directory)", () => {
  it.live("attaches a tmux client to the session from inside another tmux server; says why it cannot otherwise", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const spawned = yield* s.orch(["spawn", "app", "--task", "Look around"], { cwd: s.repo.path })
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(s.record("app-1").runtime.data.socket, s.socket, "tmux's default socket under TMUX_TMPDIR")

      // A terminal: a pane of another tmux server, on its own socket.
      const outer = join(s.root, "outer.sock")
      yield* Effect.addFinalizer(() => Effect.sync(() => execFileSync("tmux", ["-S", outer, "kill-server"], { stdio: "ignore" })))
      const line =
        `cd ${s.elsewhere} && env HOME=${s.home} TMUX_TMPDIR=${s.tmuxDir} ${process.execPath} ${ORCH_BIN} attach app-1; echo "attach exited $?"; sleep 60`
      execFileSync("tmux", ["-S", outer, "new-session", "-d", "-x", "120", "-y", "30", line])
      const clients = yield* eventually("a client attached to app-1", () => {
        const listed = s.tmux("list-clients", "-F", "#{client_session}").trim()
        return listed === "" ? undefined : listed
      })
      assert.strictEqual(clients, "app-1")
      const outerScreen = () => execFileSync("tmux", ["-S", outer, "capture-pane", "-p"], { encoding: "utf8" })
      yield* eventually("the session's screen in the outer terminal", () => outerScreen().includes("ready app-1"))
      s.tmux("detach-client", "-s", "app-1")
      yield* eventually("attach to return", () => outerScreen().includes("attach exited 0"))

      // Not in a terminal.
      const piped = yield* s.orch(["attach", "app-1"])
      assert.deepStrictEqual(piped, {
        code: 2,
        stdout: "",
        stderr: "orch: attach needs a terminal, and this is not one (no TTY); run it in a terminal, or watch app-1 on the dashboard\n"
      })
      // Unknown.
      assert.deepStrictEqual(yield* s.orch(["attach", "app-9"]), { code: 1, stdout: "", stderr: "orch: no session app-9\n" })
    }), 60_000)

  it.live("an ended session, a terminal that is gone, and the process runtime each say so in one sentence", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      for (const issue of ["1", "2"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue], { cwd: s.repo.path })).code, 0)
      // `script` gives attach a terminal, so what it says is about the session.
      const inTerminal = (id: string) =>
        Effect.sync(() => {
          try {
            return {
              code: 0,
              out: execFileSync("script", ["-qec", `${process.execPath} ${ORCH_BIN} attach ${id}`, "/dev/null"], {
                cwd: s.elsewhere,
                env: { PATH: process.env.PATH ?? "", ...s.env },
                encoding: "utf8",
                timeout: 20_000
              })
            }
          } catch (error) {
            const e = error as { status: number; stdout: string }
            return { code: e.status, out: e.stdout }
          }
        })
      s.tmux("kill-session", "-t", "=app-2")
      const gone = yield* inTerminal("app-2")
      assert.strictEqual(gone.code, 1)
      assert.strictEqual(
        gone.out.trim(),
        `orch: session app-2's terminal is gone (tmux on ${s.socket} has no session app-2); \`orch session restore app-2\` starts it again`
      )

      s.tmux("send-keys", "-t", "=app-1:", "C-d")
      yield* eventually("app-1's agent to exit", () => s.tmux("display-message", "-p", "-t", "=app-1:", "#{pane_dead}").trim() === "1")
      const exited = yield* inTerminal("app-1")
      assert.strictEqual(exited.code, 1)
      assert.strictEqual(exited.out.trim(), "orch: session app-1's agent has exited; `orch session restore app-1` starts it again")

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      const ended = yield* inTerminal("app-1")
      assert.strictEqual(ended.code, 1)
      assert.strictEqual(ended.out.trim(), "orch: session app-1 has ended (killed), so it has no terminal; `orch session restore app-1` starts it again")

      const file = join(s.dataDir, "sessions", "app", "app-2", "session.json")
      writeFileSync(file, JSON.stringify({ ...s.record("app-2"), runtime: { plugin: "process", id: "app-2", data: {} } }))
      const pty = yield* inTerminal("app-2")
      assert.strictEqual(pty.code, 1)
      assert.strictEqual(
        pty.out.trim(),
        "orch: session app-2 runs in the supervisor's process runtime, which has no terminal to attach to; watch and type to it on the dashboard (orch start prints its address)"
      )
      rmSync(file)
    }), 60_000)
})
