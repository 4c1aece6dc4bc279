/**
 * Activity as a user sees it, with the built CLI, tmux and a real supervisor: a `command` agent that prints and
 * then goes quiet becomes ready, then idle; `orch report`, run by the agent itself (it runs each line it is
 * sent, in its own environment), changes its activity with and without a supervisor, and shows in `orch status`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionRecord } from "../../src/domain/session.ts"
import { ORCH_BIN, runOrch } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { userSandbox } from "../support/user-sandbox.ts"

/** An agent that prints one line, then runs every line it is sent (so it can run `orch report` itself). */
const OBEDIENT_AGENT = `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do eval "$line"; done`
const reportCommand = (args: string) => `node ${ORCH_BIN} report ${args}`

interface Event {
  readonly type: string
  readonly sessionId?: string
  readonly message?: string
}

describe("orch report and quiescence (built CLI, tmux, supervisor)", () => {
  it.live("a command agent goes ready then idle by itself; orch report from inside it wins, with and without a supervisor", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({
        agentCommand: OBEDIENT_AGENT,
        project: { agentConfig: { command: OBEDIENT_AGENT, quietMs: 1500 } },
        config: { readyThresholdMs: 3000 }
      })
      const mine = (type: string) => (s.events() as Array<Event>).filter((e) => e.type === type && e.sessionId === "app-1")
      const status = () =>
        Effect.map(s.orch(["status", "--json"]), (run) => (JSON.parse(run.stdout) as Array<SessionRecord>).find((r) => r.sessionId === "app-1")!)

      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).stdout, "app-1\n")
      yield* eventually("app-1 ready from its quiet screen", () => mine("session.ready").length > 0, 30_000)
      yield* eventually("app-1 idle after readyThresholdMs", () => mine("session.idle").length > 0, 30_000)
      assert.deepInclude(s.record("app-1"), { status: "idle", activity: "idle" })

      assert.strictEqual((yield* s.orch(["send", "app-1", reportCommand(`waiting_input --note "which database?"`)])).code, 0)
      yield* eventually("the report in the record", () => s.record("app-1").activity === "waiting_input", 30_000)
      assert.deepInclude(yield* status(), {
        status: "needs_input",
        activity: "waiting_input",
        said: { by: "report", activity: "waiting_input", at: s.record("app-1").said.at, report: "waiting_input", note: "which database?" }
      })
      assert.match((yield* s.orch(["status"])).stdout, /app-1\s.*needs_input\s+waiting_input/)

      assert.strictEqual((yield* s.orch(["send", "app-1", reportCommand(`done --note "opened PR #1"`)])).code, 0)
      yield* eventually("session.reported_done", () => mine("session.reported_done").length > 0, 30_000)
      assert.strictEqual(mine("session.reported_done")[0]!.message, "opened PR #1")
      yield* eventually("app-1 ready after done", () => s.record("app-1").status === "ready", 30_000)

      // Without a supervisor the report still shows in orch status at once; a new supervisor folds it, once.
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      assert.strictEqual((yield* s.orch(["send", "app-1", reportCommand("active")])).code, 0)
      yield* status().pipe(
        Effect.filterOrFail((seen) => seen.activity === "active", (seen) => new Error(`orch status still shows ${seen.activity}`)),
        Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 50 })
      )
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)
      yield* eventually("the new supervisor folds the report", () => s.record("app-1").said?.report === "active", 30_000)
      assert.lengthOf(mine("session.reported_done"), 1, "the done report was folded once, not again by the new supervisor")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 120_000)

  it.live("the wrapper docs/agents.md shows reports each turn of a one-shot CLI, and a failed turn as waiting for a person", () =>
    Effect.gen(function*() {
      const docs = readFileSync("docs/agents.md", "utf8")
      const wrapper = /A wrapper that gives[^`]*```sh\n([\s\S]*?)```/.exec(docs)?.[1]
      assert.isDefined(wrapper, "docs/agents.md shows the wrapper")
      const s = yield* sandbox()
      const bin = join(s.root, "bin")
      mkdirSync(bin)
      const script = (name: string, body: string) => {
        writeFileSync(join(bin, name), body)
        chmodSync(join(bin, name), 0o755)
      }
      script("orch", `#!/bin/sh\nexec node ${ORCH_BIN} "$@"\n`)
      script("orch-turns", wrapper!)
      script("one-shot", `#!/bin/sh\ncase "$*" in *BREAK-NOW*) exit 3;; esac\necho "answer to: $*"\n`)
      s.writeConfig({ agentConfig: { command: "orch-turns one-shot --prompt" } })
      const path = { PATH: `${bin}:${process.env.PATH ?? ""}` }
      const turns = () =>
        (s.events() as Array<Event>).filter((e) => e.sessionId === "app-1" && ["session.working", "session.ready", "session.needs_input"].includes(e.type)).map(
          (e) => e.type
        )

      assert.strictEqual((yield* s.orch(["start", "app", "--detach"], path)).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], path)).code, 0)
      yield* eventually("the first turn's ready", () => s.record("app-1").said?.report === "ready", 30_000)
      assert.include(s.screen("app-1"), "answer to: --prompt You are a coding agent")

      assert.strictEqual((yield* s.orch(["send", "app-1", "BREAK-NOW please"], path)).code, 0)
      yield* eventually("the failed turn", () => s.record("app-1").activity === "waiting_input", 30_000)
      assert.deepInclude(s.record("app-1").said, { report: "waiting_input", note: "one-shot failed (exit 3)" })

      assert.strictEqual((yield* s.orch(["send", "app-1", "try again"], path)).code, 0)
      yield* eventually("the next turn's ready", () => s.record("app-1").status === "ready", 30_000)
      assert.include(s.screen("app-1"), "answer to: --prompt try again")
      assert.deepStrictEqual(turns().slice(-3), ["session.needs_input", "session.working", "session.ready"])
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 120_000)
})

describe("a report from before a restore", () => {
  it.live("is never folded again: kill, restore, then a supervisor adopts the session (the default path)", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig({ agentConfig: { command: OBEDIENT_AGENT } })
      const activityFile = join(s.dataDir, "sessions", "app", "app-1", "activity.jsonl")
      const screen = () => s.tmux("capture-pane", "-p", "-t", "=app-1:")
      const mine = (type: string) => (s.events() as Array<Event>).filter((e) => e.type === type && e.sessionId === "app-1")

      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], { cwd: s.repo.path })).code, 0)
      yield* eventually("the agent", () => screen().includes("ready app-1"))
      assert.strictEqual((yield* s.orch(["send", "app-1", reportCommand(`done --note "old news"`)])).code, 0)
      yield* eventually("the report in activity.jsonl", () => existsSync(activityFile) && readFileSync(activityFile, "utf8").includes("old news"))
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "restore", "app-1"])).code, 0)
      assert.strictEqual(s.record("app-1").signalOffset, statSync(activityFile).size, "the restored session reads signals from the end of the file")

      const started = yield* s.orch(["start", "app", "--detach", "--no-open"], { cwd: s.repo.path })
      assert.strictEqual(started.code, 0, started.stderr)
      yield* eventually("the restored agent", () => screen().includes("ready app-1"))
      assert.strictEqual((yield* s.orch(["send", "app-1", reportCommand(`active --note "new work"`)])).code, 0)
      yield* eventually("the new report folded", () => s.record("app-1").said?.note === "new work", 30_000)
      assert.deepStrictEqual(mine("session.reported_done"), [], "the old done report came back")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)
})

describe("orch report outside a session", () => {
  it.effect("without $ORCH_SESSION_ID, with a state it does not know, or naming no session: one sentence, exit 2", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("orch-report-")
      const outside = runOrch(["report", "done"], { env: { HOME: home } })
      assert.deepStrictEqual(outside, {
        code: 2,
        stdout: "",
        stderr: "orch: orch report runs inside a session: $ORCH_SESSION_ID is not set (orch sets it for every agent it starts)\n"
      })
      const unknownState = runOrch(["report", "finished"], { env: { HOME: home, ORCH_SESSION_ID: "app-1" } })
      assert.strictEqual(unknownState.code, 2)
      assert.include(unknownState.stderr, `Expected: "active" | "ready" | "waiting_input" | "rate_limited" | "done"`)
      const noSession = runOrch(["report", "ready"], { env: { HOME: home, ORCH_SESSION_ID: "app-9" } })
      assert.deepStrictEqual(noSession, {
        code: 2,
        stdout: "",
        stderr: `orch: $ORCH_SESSION_ID names app-9, which has no record in ${join(home, ".orchestrator")}\n`
      })
    }))
})
