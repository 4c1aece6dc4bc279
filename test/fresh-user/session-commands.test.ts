/**
 * The session commands as a new user meets them, on the default path: the built CLI, a fresh HOME, an empty
 * TMUX_TMPDIR, no ORCH_* variable, the config in the repository's own orchestrator.yaml (`tracker: none`,
 * `scm: none`). `session ls` lists where `status` does (no config found, a config with an error, a plugin that cannot be built)
 * and says a record it cannot read as `status` does; a session whose
 * agent is gone reads `errored`, not `working`, and `prune` removes it unless its worktree holds unsaved work; a kill
 * of a session whose worktree the user deleted leaves git with nothing to prune; every rescue commit says the same
 * thing; cleanup of a project with no scm says where the work is.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { existsSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { rescueMessage } from "../../src/sessions/teardown.ts"
import { eventually } from "../support/eventually.ts"
import { git, makeRepo } from "../support/repo.ts"
import { ECHO_AGENT, userSandbox } from "../support/user-sandbox.ts"

type Sandbox = Effect.Success<typeof userSandbox>

/** An agent that waits until the test creates `stop-<session>` beside its worktree, then exits 0; `alive` ones never do. */
const stoppable = (...alive: Array<string>) =>
  `case "$ORCH_SESSION_ID" in ${alive.length > 0 ? `${alive.join("|")}) ${ECHO_AGENT};; ` : ""}*) echo "ready $ORCH_SESSION_ID"; ` +
  `while [ ! -e "../stop-$ORCH_SESSION_ID" ]; do sleep 0.1; done;; esac`

/** Ends the agent of `sessionId` and waits until tmux shows its pane dead. */
const stopAgent = (s: Sandbox, sessionId: string) =>
  Effect.gen(function*() {
    writeFileSync(join(s.dataDir, "worktrees", "app", `stop-${sessionId}`), "")
    yield* eventually(`${sessionId}'s agent to exit`, () => s.tmux("list-panes", "-t", `=${sessionId}:`, "-F", "#{pane_dead}").trim() === "1", 30_000)
  })

const worktreeList = (s: Sandbox) => git(s.repo.path, "worktree", "list", "--porcelain")

/** The sandbox's repository config with project `app`, and `lib` (another repository) when `lib` is given. */
const writeProjects = (s: Sandbox, lib?: string) =>
  writeFileSync(
    join(s.repo.path, "orchestrator.yaml"),
    stringify({ ...s.ports, projects: { app: s.project(), ...(lib !== undefined ? { lib: s.project({ repo: "acme/lib", path: lib }) } : {}) } })
  )

/** Spawns a task of `lib` from the app repository; its session id. */
const spawnLib = (s: Sandbox, task: string) =>
  Effect.gen(function*() {
    const spawned = yield* s.orch(["spawn", "lib", "--task", task], { cwd: s.repo.path })
    assert.strictEqual(spawned.code, 0, spawned.stderr)
    return /\blib-\d+\b/.exec(spawned.stdout)![0]
  })

describe("session commands on the default path", () => {
  it.live("a record that cannot be read is said by session ls and status alike (one warning each), the others listed", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const inRepo = { cwd: s.repo.path }
      for (const task of ["One", "Two", "Three"]) assert.strictEqual((yield* s.orch(["spawn", "app", "--task", task], inRepo)).code, 0)
      const record = (id: string) => join(s.dataDir, "sessions", "app", id, "session.json")
      writeFileSync(record("app-1"), "{\"sessionId\": \"app-1\", \"projectId\"")
      writeFileSync(record("app-2"), "garbage")
      for (const args of [["session", "ls"], ["session", "ls", "--json"], ["status"], ["status", "--json"]]) {
        const listed = yield* s.orch(args, inRepo)
        assert.strictEqual(listed.code, 0, `${args.join(" ")}: ${listed.stderr}`)
        assert.include(listed.stdout, "app-3", args.join(" "))
        const warnings = listed.stderr.split("\n").filter((line) => line.startsWith("orch: warning: cannot use "))
        assert.deepStrictEqual(warnings.map((line) => /app-\d/.exec(line)![0]).toSorted(), ["app-1", "app-2"], `${args.join(" ")}: ${listed.stderr}`)
      }
      assert.strictEqual((yield* s.orch(["session", "kill", "app-3"], inRepo)).code, 0)
    }))

  it.live("session ls lists where status does: with no config found, and with a config that has an error (said once)", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const file = s.writeRepoConfig()
      const inRepo = { cwd: s.repo.path }
      assert.deepStrictEqual(yield* s.orch(["session", "ls"]), { code: 0, stdout: "No sessions. Start one with `orch spawn <project> <issue>`.\n", stderr: "" })
      // The project here has `tracker: none`: the hints say --task.
      const noTracker = "No sessions. Start one with `orch spawn app --task \"<what to do>\"`.\n"
      assert.deepStrictEqual(yield* s.orch(["session", "ls"], inRepo), { code: 0, stdout: noTracker, stderr: "" })
      assert.deepStrictEqual(yield* s.orch(["status"], inRepo), { code: 0, stdout: noTracker, stderr: "" })
      assert.deepStrictEqual(yield* s.orch(["queue", "ls"], inRepo), {
        code: 0,
        stdout: "The queue is empty. Add to it with `orch queue add app --task \"<what to do>\"`.\n",
        stderr: ""
      })
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], inRepo)).code, 0)

      // From a directory no config is found from, as `orch status` does.
      const status = yield* s.orch(["status"])
      assert.strictEqual(status.code, 0, status.stderr)
      const anywhere = yield* s.orch(["session", "ls"])
      assert.strictEqual(anywhere.code, 0, anywhere.stderr)
      assert.strictEqual(anywhere.stderr, "")
      assert.match(anywhere.stdout, /^app-1\s+1\s+working\s+alive\s/m, anywhere.stdout)
      const json = JSON.parse((yield* s.orch(["session", "ls", "--json"])).stdout) as Array<{ sessionId: string; runtimeState: string }>
      assert.deepStrictEqual(json.map((r) => [r.sessionId, r.runtimeState]), [["app-1", "alive"]])

      // The config gets an error: ls still lists (its terminal found on the socket it was made on), and says why once.
      writeFileSync(file, stringify({ ...s.ports, projects: { app: s.project({ repo: "not a repo" }) } }))
      const broken = yield* s.orch(["session", "ls"], inRepo)
      assert.strictEqual(broken.code, 0, broken.stderr)
      assert.match(
        broken.stderr,
        /^orch: warning: the config cannot be used \(Validation error at "projects\.app\.repo": [^\n]+\); sessions are listed without it, and a terminal only it could reach shows unknown\n$/
      )
      assert.match(broken.stdout, /^app-1\s+1\s+working\s+alive\s/m, broken.stdout)
      assert.strictEqual((yield* s.orch(["status"], inRepo)).code, 0)

      // A plugin the config names that cannot be built (a typo): ls warns where it is written, and lists; the
      // project's terminals show unknown (only its plugins could reach them).
      writeFileSync(file, stringify({ ...s.ports, projects: { app: s.project({ agent: "comand" }) } }))
      const plugin = yield* s.orch(["session", "ls"], inRepo)
      assert.strictEqual(plugin.code, 0, plugin.stderr)
      assert.match(
        plugin.stderr,
        new RegExp(
          "^orch: warning: project \"app\" cannot be used \\(Unknown agent plugin \"comand\" \\(did you mean \"command\"\\?\\)[^\\n]*, " +
            `${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+\\); its sessions are listed without it, and their terminals show unknown\n$`
        )
      )
      assert.match(plugin.stdout, /^app-1\s+1\s+working\s+unknown\s/m, plugin.stdout)
      const pluginJson = JSON.parse((yield* s.orch(["session", "ls", "--json"], inRepo)).stdout) as Array<{ sessionId: string; runtimeState: string }>
      assert.deepStrictEqual(pluginJson.map((r) => [r.sessionId, r.runtimeState]), [["app-1", "unknown"]])
      s.writeRepoConfig()
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"], inRepo)).code, 0)
    }), 60_000)

  it.live(
    "with a supervisor running, status says an agent that is gone is errored at once, not after the supervisor's probes agree",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig({ agentConfig: { command: stoppable() } })
        const inRepo = { cwd: s.repo.path }
        assert.strictEqual((yield* s.orch(["start", "--detach", "--no-open"], inRepo)).code, 0)
        yield* Effect.addFinalizer(() => Effect.asVoid(s.orch(["stop", "--kill-sessions"], inRepo)))
        assert.strictEqual((yield* s.orch(["spawn", "app", "1"], inRepo)).code, 0)
        yield* stopAgent(s, "app-1")
        // The supervisor takes three probes 5 s apart to agree the agent is gone; status asks the system for its process.
        const status = (yield* s.orch(["status"], inRepo)).stdout
        assert.match(status, /^app-1\s+1\s+feat\/1\s+errored\s+exited\s/m, status)
      }),
    60_000
  )

  it.live(
    "an agent that dies after its start is quoted, one line, its secret hidden: in status, its event and its notification",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        // Up past the start look, then it prints why it gives up, a key among it, and exits 1.
        const dying = `echo "ready $ORCH_SESSION_ID"; while [ ! -e "../stop-$ORCH_SESSION_ID" ]; do sleep 0.1; done; ` +
          `echo "API error 401: key sk-ant-api03-abcdefghijklmnopqrstuv was refused"; echo "giving up"; exit 1`
        s.writeRepoConfig({ agentConfig: { command: dying } })
        const inRepo = { cwd: s.repo.path }
        assert.strictEqual((yield* s.orch(["start", "--detach", "--no-open"], inRepo)).code, 0)
        yield* Effect.addFinalizer(() => Effect.asVoid(s.orch(["stop", "--kill-sessions"], inRepo)))
        assert.strictEqual((yield* s.orch(["spawn", "app", "1"], inRepo)).code, 0)
        yield* stopAgent(s, "app-1")
        // Receipt: the supervisor's probes agree it is gone (three, 5 s apart) and it records what it printed.
        yield* eventually("session.exited", () => s.events().some((e) => e.type === "session.exited" && e.sessionId === "app-1"), 30_000)
        const note = "ready app-1 / API error 401: key <redacted> was refused / giving up"
        const exited = s.events().find((e) => e.type === "session.exited" && e.sessionId === "app-1")
        assert.strictEqual(exited.message, `the agent process ended; it printed: ${note}`)
        const status = (yield* s.orch(["status"], inRepo)).stdout
        assert.include(status, `app-1's agent ended; it printed: ${note} (\`orch session restore app-1\` starts it again)`)
        yield* eventually("the agent-exited notification", () =>
          s.events().some((e) => e.type === "notification.sent" && e.data?.type === "reaction.agent-exited"), 20_000)
        const inbox = yield* s.orch(["notifications", "--json"], inRepo)
        assert.include(inbox.stdout, `it printed: ${note}`)
        assert.notInclude(JSON.stringify(s.events()) + inbox.stdout + status, "sk-ant-api03")
      }),
    60_000
  )

  it.live(
    "an agent that is gone: status and ls say errored, not working; prune removes the clean one and keeps unsaved work, saying why",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig({ agentConfig: { command: stoppable("app-3") } })
        const inRepo = { cwd: s.repo.path }
        for (const issue of ["1", "2", "3"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue], inRepo)).code, 0)
        const worktree = (id: string) => join(s.dataDir, "worktrees", "app", id)
        writeFileSync(join(worktree("app-2"), "draft.txt"), "not committed\n")
        yield* stopAgent(s, "app-1")
        yield* stopAgent(s, "app-2")

        const status = (yield* s.orch(["status"])).stdout
        assert.match(status, /^app-1\s+1\s+feat\/1\s+errored\s+exited\s/m, status)
        assert.match(status, /^app-2\s+2\s+feat\/2\s+errored\s+exited\s/m, status)
        assert.match(status, /^app-3\s+3\s+feat\/3\s+working\s+active\s/m, status)
        const ls = (yield* s.orch(["session", "ls"], inRepo)).stdout
        assert.match(ls, /^app-1\s+1\s+errored\s+exited \(0\)\s/m, ls)

        const kept = "kept app-2: its worktree " + worktree("app-2") +
          " has unsaved work (1 uncommitted file); `orch session kill app-2` saves it to refs/orch/rescue/app-2 and removes the worktree, or commit and push it"
        const dry = yield* s.orch(["session", "prune", "--dry-run"], inRepo)
        assert.strictEqual(dry.stdout, `would remove app-1 (errored) and its worktree\n${kept}\n`, dry.stderr)
        assert.isTrue(existsSync(worktree("app-1")), "a dry run removes nothing")

        const pruned = yield* s.orch(["session", "prune"], inRepo)
        assert.strictEqual(pruned.code, 0, pruned.stderr)
        assert.strictEqual(pruned.stdout, `removed app-1 (errored) and its worktree\n${kept}\n`)
        assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
        assert.isFalse(existsSync(worktree("app-1")))
        assert.isTrue(existsSync(join(worktree("app-2"), "draft.txt")), "unsaved work is never pruned")
        assert.notInclude(worktreeList(s), "prunable")
        assert.deepInclude(s.events().filter((e) => e.type === "session.removed").at(-1), {
          sessionId: "app-1",
          message: "orch session prune removed its record (errored)"
        })
        assert.deepStrictEqual(s.sessions(), ["app-2", "app-3"], "the live agent and the kept session's terminal stay")
        assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"], inRepo)).code, 0)
      }),
    60_000
  )

  it.live("a session whose project left the config is killed and removed: without a supervisor and through one", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const lib = makeRepo(s.root, "lib")
      const inRepo = { cwd: s.repo.path }
      const libWorktrees = () => git(lib.path, "worktree", "list", "--porcelain").split("\n\n").filter(Boolean).length
      writeProjects(s, lib.path)
      const first = yield* spawnLib(s, "lib work")
      writeProjects(s)
      // From the app repository, whose config no longer has lib, and from anywhere.
      assert.deepStrictEqual(yield* s.orch(["session", "kill", first], inRepo), { code: 0, stdout: `killed ${first}\n`, stderr: "" })
      assert.isFalse(existsSync(join(s.dataDir, "worktrees", "lib", first)))
      assert.strictEqual(libWorktrees(), 1)
      assert.deepStrictEqual(yield* s.orch(["session", "rm", first], inRepo), { code: 0, stdout: `removed ${first} (killed)\n`, stderr: "" })

      // Through the supervisor, once it serves the config without lib (its status says the session is unwatched).
      writeProjects(s, lib.path)
      const second = yield* spawnLib(s, "more lib work")
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"], inRepo)
      assert.strictEqual(started.code, 0, started.stderr)
      writeProjects(s)
      const unwatched = (status: { readonly stdout: string }) => status.stdout.includes(`${second} is unwatched`)
      const status = yield* s.orch(["status"], inRepo).pipe(Effect.repeat({ until: unwatched, schedule: Schedule.spaced("200 millis"), times: 150 }))
      assert.isTrue(unwatched(status), status.stdout)
      assert.deepStrictEqual(yield* s.orch(["session", "kill", second], inRepo), { code: 0, stdout: `killed ${second}\n`, stderr: "" })
      assert.strictEqual(libWorktrees(), 1)
      assert.deepStrictEqual(yield* s.orch(["session", "rm", second], inRepo), { code: 0, stdout: `removed ${second} (killed)\n`, stderr: "" })
      assert.notInclude(s.sessions(), second)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"], inRepo)).code, 0)
    }), 90_000)

  it.live("kill: one rescue message for an issue and a task; a worktree the user deleted leaves git nothing to prune", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const inRepo = { cwd: s.repo.path }
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], inRepo)).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "--task", "Fix the login"], inRepo)).code, 0)
      for (const id of ["app-1", "app-2"]) writeFileSync(join(s.dataDir, "worktrees", "app", id, "notes.txt"), "half-done\n")
      for (const id of ["app-1", "app-2"]) assert.strictEqual((yield* s.orch(["session", "kill", id], inRepo)).code, 0)
      assert.strictEqual(git(s.repo.path, "log", "-1", "--format=%B", "refs/orch/rescue/app-1"), rescueMessage({ sessionId: "app-1", issueId: "1" }))
      assert.match(git(s.repo.path, "log", "-1", "--format=%B", "refs/orch/rescue/app-2"), /^orch: work saved from app-2 \(task fix-the-login\)\n\n/)

      assert.strictEqual((yield* s.orch(["spawn", "app", "3"], inRepo)).code, 0)
      rmSync(join(s.dataDir, "worktrees", "app", "app-3"), { recursive: true, force: true })
      assert.include(worktreeList(s), "prunable", "git still has the deleted worktree registered")
      const killed = yield* s.orch(["session", "kill", "app-3"], inRepo)
      assert.strictEqual(killed.code, 0, killed.stderr)
      assert.strictEqual(killed.stdout, "killed app-3\n")
      assert.notInclude(worktreeList(s), "prunable")
      assert.strictEqual(worktreeList(s).split("\n\n").filter(Boolean).length, 1, worktreeList(s))
      assert.deepStrictEqual(s.sessions(), [])
    }), 60_000)

  it.live("cleanup of a project with no scm says where its work is, not that no PR was opened", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig({ agentConfig: { command: stoppable() } })
      const inRepo = { cwd: s.repo.path }
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], inRepo)).code, 0)
      yield* stopAgent(s, "app-1")
      const cleaned = yield* s.orch(["session", "cleanup"], inRepo)
      assert.strictEqual(cleaned.code, 0, cleaned.stderr)
      assert.strictEqual(
        cleaned.stdout,
        "cleaned app-1 (exited): its agent exited (code 0); the project has no scm, so its work is on branch feat/1, not in a PR\n"
      )
    }), 60_000)
})
