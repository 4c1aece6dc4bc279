/**
 * The supervisor follows its config file, as a user meets it: the built CLI, a real supervisor, tmux. The test
 * edits orchestrator.yaml on disk and waits for the supervisor's receipts in events.jsonl.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { runOrch } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { makeRepo } from "../support/repo.ts"

/** An agent that reports `Stop` (ready) after each line it reads. */
const SIGNALLING_AGENT =
  `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; printf '{"event":"Stop","ts":"%s"}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$ORCH_ACTIVITY_FILE"; done`

describe("orch start follows its config file (built CLI, tmux)", () => {
  it.live("a project added is spawned through the running supervisor; an invalid edit is kept out and shown; fixed, it applies", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: SIGNALLING_AGENT })
      const web = makeRepo(s.root, "web")
      const project = (repo: string, path: string) => ({
        repo,
        path,
        agent: "command",
        agentConfig: { command: SIGNALLING_AGENT },
        tracker: { plugin: "repohost", apiUrl: "http://127.0.0.1:9" }
      })
      const config = (projects: Record<string, unknown>) =>
        stringify({ port: s.port, terminalPort: s.terminalPort, directTerminalPort: s.directTerminalPort, projects })
      const both = config({ app: project("acme/app", s.repo.path), web: project("acme/web", web.path) })
      /** Saves as many editors do: a new file renamed over the old one (a new inode). */
      const saveByRename = (text: string) => {
        writeFileSync(`${s.config}.tmp`, text)
        renameSync(`${s.config}.tmp`, s.config)
      }
      const ofType = (type: string) => s.events().filter((e) => e.type === type)
      const panePid = (session: string) =>
        execFileSync("tmux", ["-S", s.socket, "list-panes", "-t", `=${session}:`, "-F", "#{pane_pid}"], { encoding: "utf8" }).trim()
      const supervisorPid = () => (JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }).pid

      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).stdout, "app-1\n")
      const pid = supervisorPid()
      const appPane = panePid("app-1")
      const unknown = yield* s.orch(["spawn", "web", "1"])
      assert.notStrictEqual(unknown.code, 0, "web is not a project yet")

      // (1) A second project, written in place.
      writeFileSync(s.config, both)
      const applied = yield* eventually("config.applied", () => ofType("config.applied")[0], 15_000)
      assert.deepInclude(applied.data, { file: s.config, added: ["web"], removed: [], changed: [], restartNeeded: [], unwatched: [] })
      const spawned = yield* s.orch(["spawn", "web", "1"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(spawned.stdout, "web-1\n")
      assert.strictEqual((yield* s.orch(["send", "web-1", "go"])).code, 0)
      // Only a session actor makes a session ready: the supervisor watches the new project's session.
      yield* eventually("the supervisor to drive web-1", () => ofType("session.ready").some((e) => e.sessionId === "web-1"), 15_000)
      assert.strictEqual(supervisorPid(), pid, "the same supervisor, not restarted")
      assert.strictEqual(panePid("app-1"), appPane, "app-1 runs on in the same terminal, the same process")
      assert.deepStrictEqual(ofType("session.adopted"), [], "nothing was adopted: the supervisor's actors went on")

      // (2) An invalid edit, saved by rename: web has no repo.
      saveByRename(config({ app: project("acme/app", s.repo.path), web: { path: web.path } }))
      const rejected = yield* eventually("config.rejected", () => ofType("config.rejected")[0], 15_000)
      assert.strictEqual(rejected.message, `Validation error at "projects.web.repo": Required (${s.config}:16:3)`)
      const inbox = yield* eventually("the warning in the inbox", () => {
        const listed = runOrch(["notifications"], { cwd: s.root, env: s.env }).stdout
        return listed.includes("config not applied") ? listed : undefined
      })
      assert.include(inbox, `config not applied: ${s.config}`)
      const status = yield* s.orch(["status"])
      assert.strictEqual(status.code, 0, status.stderr)
      assert.include(status.stdout, `config: ${s.config} has an error since `)
      assert.include(status.stdout, ` and was not applied: Validation error at "projects.web.repo": Required (${s.config}:16:3)`)
      // The supervisor still serves the config it had: web is still a project there.
      const again = yield* s.orch(["spawn", "web", "2"])
      assert.strictEqual(again.code, 0, again.stderr)
      assert.strictEqual(again.stdout, "web-2\n")

      // (3) Fixed.
      saveByRename(both)
      const fixed = yield* eventually("the second config.applied", () => ofType("config.applied")[1], 15_000)
      assert.strictEqual(fixed.message, "valid again: nothing the supervisor runs on changed")
      const after = yield* s.orch(["status"])
      assert.notInclude(after.stdout, "config:")
      assert.strictEqual(ofType("config.rejected").length, 1)
      assert.strictEqual(supervisorPid(), pid)
      assert.includeMembers(s.sessions(), ["app-1", "app-orchestrator", "web-1", "web-2"])
      assert.notInclude(readFileSync(join(s.dataDir, "supervisor.log"), "utf8"), "config reload", "no reload failed on the way")
      assert.isTrue(existsSync(join(s.dataDir, "config-state.json")))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      assert.isFalse(existsSync(join(s.dataDir, "config-state.json")), "the supervisor takes its config state with it")
    }), 90_000)
})
