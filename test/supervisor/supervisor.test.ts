import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { eventually, processGone } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"

/** An agent that reports `Stop` (ready) after each line it reads. */
const SIGNALLING_AGENT =
  `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; printf '{"event":"Stop","ts":"%s"}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$ORCH_ACTIVITY_FILE"; done`

const supervisorFile = (dataDir: string) => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "supervisor.json"), "utf8")) as { pid: number; socket: string }
  } catch {
    return undefined
  }
}

describe("orch start / stop (real supervisor, tmux, IPC)", () => {
  it.live("start --detach returns once the supervisor answers; commands go through it; stop leaves sessions running", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: SIGNALLING_AGENT })
      const started = yield* s.orch(["start", "app", "--detach"])
      assert.strictEqual(started.code, 0, started.stderr)
      assert.include(started.stdout, "app-orchestrator")
      const file = supervisorFile(s.dataDir)!
      assert.isDefined(file)
      assert.isTrue(existsSync(file.socket))
      assert.include(s.sessions(), "app-orchestrator")

      const spawned = yield* s.orch(["spawn", "app", "3"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(spawned.stdout, "app-1\n")
      assert.strictEqual((yield* s.orch(["send", "app-1", "go"])).code, 0)
      // the actor sees the agent's Stop signal and makes the session ready
      yield* eventually("session.ready from the supervisor", () => s.events().some((e) => e.type === "session.ready" && e.sessionId === "app-1"), 15_000)
      assert.strictEqual(s.record("app-1").status, "ready")

      const again = yield* s.orch(["start", "app"])
      assert.strictEqual(again.code, 0, again.stderr)
      assert.include(again.stdout, "app-orchestrator is already running")
      assert.strictEqual(supervisorFile(s.dataDir)!.pid, file.pid, "a second start joins the running supervisor")

      const stopped = yield* s.orch(["stop"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.include(stopped.stdout, "sessions keep running")
      assert.isUndefined(supervisorFile(s.dataDir))
      assert.includeMembers(s.sessions(), ["app-1", "app-orchestrator"])
      assert.deepStrictEqual(s.events().filter((e) => e.type.startsWith("supervisor.")).map((e) => e.type), ["supervisor.started", "supervisor.stopped"])
      assert.strictEqual((yield* s.orch(["stop"])).stdout, "No supervisor is running.\n")
    }), 60_000)

  it.live("a worker is measured once it has run a minute (its tmux pane's process tree)", () =>
    Effect.gen(function*() {
      // The agent holds 64 MB, so its size is told apart from a shell's.
      const s = yield* sandbox({ agentCommand: `exec node -e 'const b = Buffer.alloc(64 * 2 ** 20, 1); setInterval(() => b.length, 1000)'` })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "3"])).code, 0)
      const path = join(s.dataDir, "session-sizes.json")
      const spawnedAt = Date.now()
      const sizes = yield* eventually("session-sizes.json", () =>
        existsSync(path) && (JSON.parse(readFileSync(path, "utf8")) as { agents: Record<string, { bytes: number }> }), 90_000)
      assert.isAtLeast(Date.now() - spawnedAt, 55_000, "not before it has run a minute")
      assert.isAbove(sizes.agents.command?.bytes ?? 0, 64 * 1024 ** 2, JSON.stringify(sizes))
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 120_000)

  it.live("kill -9 of the supervisor loses no record or event; the CLI carries on alone; a new start adopts the sessions", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: SIGNALLING_AGENT })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const { pid } = supervisorFile(s.dataDir)!
      process.kill(pid, "SIGKILL")
      yield* eventually("the supervisor to die", () => processGone(pid))
      for (const line of readFileSync(join(s.dataDir, "events.jsonl"), "utf8").trim().split("\n")) JSON.parse(line)
      assert.strictEqual(s.record("app-1").status, "working")

      const local = yield* s.orch(["spawn", "app", "2"])
      assert.strictEqual(local.code, 0, local.stderr)
      assert.strictEqual(local.stdout, "app-2\n")

      execFileSync("tmux", ["-S", s.socket, "new-session", "-d", "-s", "app-9", "sleep 60"])
      const restarted = yield* s.orch(["start", "app", "--detach"])
      assert.strictEqual(restarted.code, 0, restarted.stderr)
      const adopted = s.events().filter((e) => e.type === "session.adopted").map((e) => e.sessionId)
      assert.includeMembers(adopted, ["app-1", "app-2", "app-orchestrator"])
      assert.deepInclude(s.events().find((e) => e.type === "session.orphaned"), { sessionId: "app-9", projectId: "app" })
      yield* eventually("the orphan in the inbox", () =>
        (readFileSync(join(s.dataDir, "notifications.jsonl"), "utf8")).includes("app-9: terminal session without a record"))
      const newPid = supervisorFile(s.dataDir)!.pid
      assert.notStrictEqual(newPid, pid)
      const probed = yield* eventually("the first probe after adoption", () =>
        s.events().find((e) => e.type === "supervisor.adopted" && e.data.pid === newPid))
      assert.deepInclude(probed.data, { sessions: 3, alive: 3, exited: 0, gone: 0, unknown: 0 })
      assert.strictEqual((yield* s.orch(["send", "app-2", "hello"])).code, 0)
      yield* eventually("the new supervisor to drive app-2", () => s.events().some((e) => e.type === "session.ready" && e.sessionId === "app-2"), 15_000)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
      assert.deepStrictEqual(s.sessions(), ["app-9"], "only orch's own sessions are killed")
      assert.strictEqual(s.record("app-1").status, "killed")
    }), 60_000)
})
