/**
 * orch as a new user meets it: installed from the packed tarball, run on a machine where nothing of orch's or
 * tmux's ran before (empty HOME, empty TMUX_TMPDIR, no ORCH_* variable), against a GitHub-looking repository.
 * Its main path, step by step, through a supervisor crash — also one whose parent never reaps it (a zombie) — and a
 * session on another machine over SSH (a real sshd for a Unix user of its own, on a loopback address). Queued work
 * through a kill -9 mid-admission and a stop with sessions killed; ids refused up front; a host that cannot read
 * origin left out, not given the work; admission in a memory control group counting the sessions it just started.
 */
import { assert, expect, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { parseDocument } from "yaml"
import { ISSUE_ID_EXPECTED } from "../../src/domain/issue-id.ts"
import { rescueMessage } from "../../src/sessions/teardown.ts"
import { eventually } from "../support/eventually.ts"
import { freshUser } from "../support/fresh-user.ts"
import { memoryGroup, memoryGroupUnavailable } from "../support/memory-group.ts"
import { ECHO_AGENT } from "../support/orch-sandbox.ts"
import { type PackedInstall, packedInstall } from "../support/packed-install.ts"
import { freePort } from "../support/ports.ts"
import { makeSshHosts, type SshHost, sshHostsUnavailable } from "../support/ssh-hosts.ts"

class Installed extends Context.Service<Installed, PackedInstall>()("test/Installed") {}

type User = Effect.Success<ReturnType<typeof freshUser>>

/** `orch init`, then the edits a user makes to the file it wrote, then `orch config validate`. */
const initProject = (u: User) =>
  Effect.gen(function*() {
    const init = yield* u.orch(["init"])
    const file = join(u.repo, "orchestrator.yaml")
    assert.strictEqual(init.code, 0, init.stderr)
    assert.strictEqual(init.stdout, `Wrote ${file} with project "app" (acme/app)\n`)
    const doc = parseDocument(readFileSync(file, "utf8"))
    // This machine's 3000 may be taken: free ports for the dashboard and its terminals.
    doc.set("port", yield* freePort)
    doc.set("terminalPort", yield* freePort)
    doc.set("directTerminalPort", yield* freePort)
    doc.setIn(["projects", "app", "agent"], "command")
    doc.setIn(["projects", "app", "agentConfig"], doc.createNode({ command: ECHO_AGENT }))
    doc.setIn(["projects", "app", "tracker"], doc.createNode({ plugin: "repohost", apiUrl: u.emulator.url }))
    doc.setIn(["projects", "app", "scm"], doc.createNode({ plugin: "repohost", apiUrl: u.emulator.url }))
    writeFileSync(file, doc.toString())
    const valid = yield* u.orch(["config", "validate"])
    assert.strictEqual(valid.code, 0, valid.stderr)
    assert.strictEqual(valid.stdout, `${file}: valid (1 project)\n`)
  })

/** Host `b` in the repository's orchestrator.yaml, as a user writes it: its ssh target, key and known_hosts file. */
const addHost = (u: User, b: SshHost) => {
  const file = join(u.repo, "orchestrator.yaml")
  const doc = parseDocument(readFileSync(file, "utf8"))
  doc.set(
    "hosts",
    doc.createNode({
      b: {
        ssh: `${b.spec.ssh.user}@${b.spec.ssh.hostname}:${b.spec.ssh.port}`,
        identityFile: b.spec.identityFile,
        sshOptions: { UserKnownHostsFile: b.spec.sshOptions!.UserKnownHostsFile }
      }
    })
  )
  writeFileSync(file, doc.toString())
}

/** The lines `orch start` prints when it started the supervisor, checked; the supervisor's pid. */
const assertStarted = (run: { code: number; stdout: string; stderr: string }, orchestrator: "started" | "is already running") => {
  assert.strictEqual(run.code, 0, run.stderr)
  assert.strictEqual(run.stderr, "")
  const pid = Number(/^supervisor started \(pid (\d+)\)$/m.exec(run.stdout)?.[1])
  assert.isTrue(Number.isInteger(pid), run.stdout)
  assert.include(run.stdout, `orchestrator session app-orchestrator ${orchestrator} for app\n`)
  return pid
}

/** Sessions adopted since `from` (an earlier length of the log). */
const adoptedSince = (u: User, from: number) => u.events().slice(from).filter((e) => e.type === "session.adopted").map((e) => e.sessionId).sort()

/** The new supervisor's first probe of what it adopted: every session alive. */
const probedAlive = (u: User, pid: number, sessions: number) =>
  Effect.gen(function*() {
    const probed = yield* eventually("the first probe after adoption", () => u.events().find((e) => e.type === "supervisor.adopted" && e.data.pid === pid))
    assert.deepInclude(probed.data, { sessions, alive: sessions, exited: 0, gone: 0, unknown: 0 })
  })

const processState = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]
  } catch {
    return undefined
  }
}

// Live clock (no TestClock): every wait here is on a real process. The install reads the registry's metadata for
// every dependency, which on a machine whose npm cache holds only tarballs (after `npm ci`) takes minutes.
layer(Layer.effect(Installed, packedInstall), { timeout: "300 seconds", excludeTestServices: true })("a new user, from the packed install", (it) => {
  it.effect("the package installs with nothing compiled, its `orch` the packed dist/orch.mjs", () =>
    Effect.gen(function*() {
      const install = yield* Installed
      console.log(`fresh-user: npm pack ${install.packMs.toFixed(0)} ms, npm install ${install.installMs.toFixed(0)} ms`)
      for (
        const file of [
          "package/dist/orch.mjs",
          "package/dist/cli.cjs",
          "package/dist/cli.cjs.cache",
          "package/dist/views.cjs",
          "package/dist/views.cjs.cache",
          "package/package.json"
        ]
      ) {
        assert.include(install.packed, file)
      }
      assert.strictEqual(realpathSync(join(install.bin, "orch")), join(install.packageDir, "dist", "orch.mjs"))
      // Source maps serve no user (orch never shows a stack trace) and were most of the package's 35 MB.
      assert.deepStrictEqual(install.packed.filter((file) => file.endsWith(".map")), [])
      // A user without a C compiler must be able to install it (waits on prebuilt node-pty).
      assert.deepStrictEqual(install.compiled, [], "npm install compiled native code")
      // Nothing for npm to run, or to ask the user to allow, at install; and nothing to warn about.
      assert.deepStrictEqual(Object.keys(install.scripts).filter((name) => /^(pre|post)?install$|^prepare$/.test(name)), [])
      assert.deepStrictEqual(install.installWarnings, [])
    }))

  it.effect("init, start, spawn, send, kill with a rescue, restore, kill -9 of the supervisor, start again at once, stop", () =>
    Effect.gen(function*() {
      const install = yield* Installed
      const u = yield* freshUser(install)
      assert.strictEqual(execFileSync("sh", ["-c", "command -v orch"], { env: u.env, encoding: "utf8" }), `${join(install.bin, "orch")}\n`)
      assert.isFalse(existsSync(dirname(u.socket)), "tmux never ran here")
      yield* initProject(u)

      const first = assertStarted(yield* u.orch(["start", "app", "--detach", "--no-open"]), "started")
      assert.strictEqual(u.supervisorPid(), first)
      assert.deepStrictEqual(u.sessions(), ["app-orchestrator"], "orch's tmux server is the user's default one")

      const spawned = yield* u.orch(["spawn", "app", "1"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(spawned.stdout, "app-1\n")
      yield* eventually("the agent to start", () => u.screen("app-1").includes("ready app-1"))
      const status = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<Record<string, unknown>>
      expect(status.find((r) => r.sessionId === "app-1")).toMatchObject({ issueId: "1", branch: "feat/1" })
      expect(["working", "ready"]).toContain(status.find((r) => r.sessionId === "app-1")?.status)
      const sent = yield* u.orch(["send", "app-1", "hello"])
      assert.strictEqual(sent.stdout, "delivered to app-1\n", sent.stderr)
      yield* eventually("hello in the agent's terminal", () => u.screen("app-1").includes("got: hello"))

      // Kill with unsaved work: it is saved, and says where; a second kill keeps the first rescue reachable.
      const worktree = join(u.dataDir, "worktrees", "app", "app-1")
      writeFileSync(join(worktree, "notes.txt"), "half-done work\n")
      const killed = yield* u.orch(["session", "kill", "app-1"])
      assert.strictEqual(killed.code, 0, killed.stderr)
      assert.match(killed.stdout, /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\n$/)
      const firstRescue = u.git(u.repo, "rev-parse", "refs/orch/rescue/app-1")
      assert.strictEqual(u.git(u.repo, "show", `${firstRescue}:notes.txt`), "half-done work")
      assert.notInclude(u.sessions(), "app-1")
      const restored = yield* u.orch(["session", "restore", "app-1"])
      assert.strictEqual(restored.code, 0, restored.stderr)
      yield* eventually("the restored agent", () => u.screen("app-1").includes("ready app-1"))
      writeFileSync(join(worktree, "second.txt"), "second attempt\n")
      const killedAgain = yield* u.orch(["session", "kill", "app-1"])
      assert.match(killedAgain.stdout, /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\n$/, killedAgain.stderr)
      const secondRescue = u.git(u.repo, "rev-parse", "refs/orch/rescue/app-1")
      assert.notStrictEqual(secondRescue, firstRescue)
      assert.strictEqual(u.git(u.repo, "show", `${secondRescue}:second.txt`), "second attempt")
      u.git(u.repo, "merge-base", "--is-ancestor", firstRescue, secondRescue) // throws unless the first is reachable
      // One message for every rescue, naming the session and its issue (a host's says the same, below).
      for (const rescue of [firstRescue, secondRescue]) {
        assert.strictEqual(u.git(u.repo, "log", "-1", "--format=%B", rescue), rescueMessage({ sessionId: "app-1", issueId: "1" }))
      }

      // Sessions live again, then the supervisor crashes and a new one starts at once.
      assert.strictEqual((yield* u.orch(["session", "restore", "app-1"])).code, 0)
      assert.strictEqual((yield* u.orch(["spawn", "app", "2"])).stdout, "app-2\n")
      assert.deepStrictEqual(u.sessions(), ["app-1", "app-2", "app-orchestrator"])
      const before = u.events().length
      process.kill(first, "SIGKILL")
      const second = assertStarted(yield* u.orch(["start", "app", "--detach", "--no-open"]), "is already running")
      assert.notStrictEqual(second, first)
      assert.strictEqual(u.supervisorPid(), second)
      assert.deepStrictEqual(adoptedSince(u, before), ["app-1", "app-2", "app-orchestrator"])
      yield* probedAlive(u, second, 3)
      const live = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ sessionId: string; status: string; activity: string }>
      // Live, doing something or waiting quietly at its prompt (an echo agent goes ready once its screen is still).
      for (const id of ["app-1", "app-2", "app-orchestrator"]) expect(["working", "ready", "idle"]).toContain(live.find((r) => r.sessionId === id)?.status)
      const after = yield* u.orch(["send", "app-2", "after the crash"])
      assert.strictEqual(after.stdout, "delivered to app-2\n", after.stderr)
      yield* eventually("the message after the crash", () => u.screen("app-2").includes("got: after the crash"))

      const stopped = yield* u.orch(["stop"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.strictEqual(stopped.stdout, `supervisor stopped (pid ${second}); sessions keep running\n`)
      yield* eventually("no orch process left", () => u.orchProcesses().length === 0)
      assert.isFalse(existsSync(join(u.dataDir, "supervisor.json")))
      assert.deepStrictEqual(u.sessions(), ["app-1", "app-2", "app-orchestrator"], "agents outlive the supervisor")
    }), 90_000)

  it.effect("a supervisor whose parent never reaps it: after kill -9 it is a zombie, and start --detach takes over at once", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* initProject(u)
      assert.strictEqual((yield* u.orch(["spawn", "app", "1"])).stdout, "app-1\n", "a spawn with no supervisor")

      // The supervisor in the foreground under a shell that execs `sleep`: its parent is alive and never waits.
      const log = join(u.root, "supervisor.out")
      const keeper = spawn("sh", ["-c", "orch start app --no-open >\"$0\" 2>&1 & exec sleep 600", log], { cwd: u.repo, env: u.env, stdio: "ignore" })
      yield* Effect.addFinalizer(() => Effect.sync(() => keeper.kill("SIGKILL")))
      const first = yield* eventually("the supervisor to answer", () =>
        /^supervisor started \(pid (\d+)\)$/m.exec(existsSync(log) ? readFileSync(log, "utf8") : "")?.[1], 20_000)
      const pid = Number(first)
      assert.strictEqual(u.supervisorPid(), pid)
      assert.strictEqual(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1], String(keeper.pid), "its parent is the keeper")
      assert.deepStrictEqual(u.sessions(), ["app-1", "app-orchestrator"])

      const before = u.events().length
      process.kill(pid, "SIGKILL")
      yield* eventually("the supervisor to be a zombie", () =>
        processState(pid) === "Z")
      const second = assertStarted(yield* u.orch(["start", "app", "--detach", "--no-open"]), "is already running")
      assert.notStrictEqual(second, pid)
      assert.deepStrictEqual(adoptedSince(u, before), ["app-1", "app-orchestrator"])
      yield* probedAlive(u, second, 2)
      const sent = yield* u.orch(["send", "app-1", "still there"])
      assert.strictEqual(sent.stdout, "delivered to app-1\n", sent.stderr)
      yield* eventually("the message", () =>
        u.screen("app-1").includes("got: still there"))
      assert.strictEqual(processState(pid), "Z", "the zombie is still there: the new supervisor did not need it gone")

      const stopped = yield* u.orch(["stop"])
      assert.strictEqual(stopped.stdout, `supervisor stopped (pid ${second}); sessions keep running\n`, stopped.stderr)
      yield* eventually("no orch process left", () => u.orchProcesses().length === 0)
    }), 60_000)

  it.effect(
    "queued work through a kill -9 of the supervisor mid-admission, then orch stop --kill-sessions: nothing queued is lost",
    () =>
      Effect.gen(function*() {
        const u = yield* freshUser(yield* Installed)
        for (const title of ["Three", "Four", "Five", "Six"]) u.emulator.addIssue("acme/app", { title })
        yield* initProject(u)
        // Each worktree's postCreate marks where it is, then takes a while: a kill lands in the middle of a spawn.
        const file = join(u.repo, "orchestrator.yaml")
        const doc = parseDocument(readFileSync(file, "utf8"))
        doc.setIn(["projects", "app", "postCreate"], doc.createNode([`touch "$PWD.postcreate"; sleep 2`]))
        writeFileSync(file, doc.toString())
        const first = assertStarted(yield* u.orch(["start", "app", "--detach", "--no-open"]), "started")
        const added = yield* u.orch(["queue", "add", "app", "1", "2", "3"])
        assert.strictEqual(added.code, 0, added.stderr)

        // The three admissions start side by side; all three are in their spawns (their worktrees' postCreate runs):
        // kill -9 of the supervisor there.
        const markers = ["app-1", "app-2", "app-3"].map((id) => join(u.dataDir, "worktrees", "app", `${id}.postcreate`))
        yield* eventually("the three admitted spawns in their postCreate", () => markers.every((marker) => existsSync(marker)), 20_000)
        process.kill(first, "SIGKILL")
        const queue = () =>
          JSON.parse(readFileSync(join(u.dataDir, "queue.json"), "utf8")) as { entries: Array<{ issue: string; admitting?: { sessionId: string } }> }
        assert.deepStrictEqual(queue().entries.map((e) => [e.issue, e.admitting?.sessionId]), [["1", "app-1"], ["2", "app-2"], ["3", "app-3"]])
        const cutShort = yield* u.orch(["queue", "ls"])
        assert.include(
          cutShort.stdout,
          "1. q-1 app 1 \"Say hello\": its start as app-1 was cut short (its orch process is gone); the next orch start or session command finishes or undoes it"
        )
        assert.include(cutShort.stdout, "3. q-3 app 3 \"Three\": its start as app-3 was cut short")

        // A new supervisor finishes or undoes them first: each half-made spawn is undone and its issue waits where it
        // was, then every issue gets exactly one session.
        const restarted = yield* u.orch(["start", "app", "--detach", "--no-open"])
        const second = assertStarted(restarted, "is already running")
        assert.notStrictEqual(second, first)
        // It says what it recovered.
        for (const n of [1, 2, 3]) {
          assert.match(restarted.stdout, new RegExp(`^recovered: undid app-${n}, a spawn of issue ${n} interrupted when its process \\(\\d+\\) died`, "m"))
          assert.match(restarted.stdout, new RegExp(`^recovered: q-${n}'s start as app-${n} was cut short: it waits in the queue again, where it was$`, "m"))
        }
        yield* eventually("all three admitted", () => u.events().filter((e) => e.type === "queue.admitted").length === 3, 30_000)
        const recovered = u.events().filter((e) => e.type === "queue.recovered")
        assert.deepStrictEqual(recovered.map((e) => [e.data.entryId, e.sessionId, e.data.outcome]), [
          ["q-1", "app-1", "returned"],
          ["q-2", "app-2", "returned"],
          ["q-3", "app-3", "returned"]
        ])
        const live = (JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ sessionId: string; issueId: string; role?: string }>)
          .filter((r) => r.role === undefined)
        assert.deepStrictEqual(live.map((r) => r.issueId).sort(), ["1", "2", "3"])
        for (const [id, type] of u.events().filter((e) => e.type === "queue.added").map((e) => [e.data.entryId, e.type])) {
          assert.lengthOf(u.events().filter((e) => e.data?.entryId === id && (e.type === "queue.admitted" || e.type === "queue.dropped")), 1, `${id} ${type}`)
        }

        // orch stop --kill-sessions while entries wait: admission stops before the first kill frees a session, so none
        // is started and cancelled half-way; every entry is still queued, none marked as being started.
        doc.setIn(["projects", "app", "maxSessions"], 3)
        writeFileSync(file, doc.toString())
        assert.strictEqual((yield* u.orch(["queue", "add", "app", "4", "5", "6"])).code, 0)
        const stopped = yield* u.orch(["stop", "--kill-sessions"])
        assert.strictEqual(stopped.code, 0, stopped.stderr)
        assert.include(stopped.stdout, "; 4 session(s) killed")
        assert.deepStrictEqual(queue().entries.map((e) => [e.issue, e.admitting?.sessionId]), [["4", undefined], ["5", undefined], ["6", undefined]])
        assert.deepStrictEqual(u.events().filter((e) => e.type === "queue.dropped"), [])
        assert.deepStrictEqual(u.sessions(), [])
        const records = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ status: string }>
        assert.deepStrictEqual([...new Set(records.map((r) => r.status))], ["killed"])
      }),
    120_000
  )

  it.effect("batch-spawn refuses what queue add refuses, before anything starts or is queued (exit 2)", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* initProject(u)
      for (const bad of ["", " ", "a b", "x;y", "a..b", "x.lock"]) {
        const run = yield* u.orch(["batch-spawn", "app", "1", bad])
        assert.strictEqual(run.code, 2, `${JSON.stringify(bad)}: ${run.stdout}${run.stderr}`)
        assert.strictEqual(run.stderr, `orch: ${JSON.stringify(bad)} is not an issue id here: expected ${ISSUE_ID_EXPECTED}\n`)
        assert.strictEqual(run.stdout, "")
      }
      assert.deepStrictEqual(u.sessions(), [])
      assert.isFalse(existsSync(join(u.dataDir, "queue.json")))
      assert.deepStrictEqual(u.events(), [])
    }), 60_000)

  it.effect(
    "a session on another machine over SSH: the host in the repository's config, orch hosts, spawn --host, send, status, kill saving the work there, restore saying how to bring it back",
    () =>
      Effect.gen(function*() {
        if (sshHostsUnavailable !== undefined) return console.log(`skipped: ${sshHostsUnavailable}`)
        const u = yield* freshUser(yield* Installed)
        const b = (yield* makeSshHosts(["b"])).hosts[0]!
        // b reaches GitHub as the user's machine does (here: the same stand-in for ssh, and the same repositories).
        chmodSync(u.root, 0o755)
        execFileSync("chmod", ["-R", "a+rwX", join(u.root, "github.com")])
        b.shell(`git config --global core.sshCommand ${join(u.root, "github-ssh")} && git config --global safe.directory '*'`)
        yield* initProject(u)
        addHost(u, b)
        const hosts = yield* u.orch(["hosts"])
        assert.strictEqual(hosts.code, 0, hosts.stderr)
        assert.match(hosts.stdout, /^b\s+up\b/m)

        const spawned = yield* u.orch(["spawn", "app", "1", "--host", "b"])
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        assert.strictEqual(spawned.stdout, "app-1\n")
        const screen = () => b.shell(`tmux -S ~/.orchestrator/tmux/default capture-pane -p -t =app-1: 2>/dev/null || true`)
        yield* eventually("the agent to start on b", () => screen().includes("ready app-1"))
        const row = (JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<Record<string, unknown>>).find((r) => r.sessionId === "app-1")
        expect(row).toMatchObject({ host: "b", branch: "feat/1" })
        const sent = yield* u.orch(["send", "app-1", "hello"])
        assert.strictEqual(sent.stdout, "delivered to app-1\n", sent.stderr)
        yield* eventually("hello in the agent's terminal on b", () => screen().includes("got: hello"))

        const worktree = String(row!.workspacePath)
        assert.isTrue(worktree.startsWith(`${b.home}/.orchestrator/worktrees/app/`), worktree)
        b.shell(`echo 'half-done work' > ${worktree}/notes.txt`)
        const killed = yield* u.orch(["session", "kill", "app-1"])
        assert.strictEqual(killed.code, 0, killed.stderr)
        assert.match(
          killed.stdout,
          /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 on origin, pushed from host b \(commit [0-9a-f]{12}; `git fetch origin refs\/orch\/rescue\/app-1:refs\/orch\/rescue\/app-1` brings it here\)\n$/
        )
        assert.strictEqual(u.git(u.origin, "show", "refs/orch/rescue/app-1:notes.txt"), "half-done work")
        assert.strictEqual(u.git(u.origin, "log", "-1", "--format=%B", "refs/orch/rescue/app-1"), rescueMessage({ sessionId: "app-1", issueId: "1" }))
        assert.strictEqual(b.shell(`test -d ${worktree} && echo kept || echo removed`).trim(), "removed")

        // Restored on b, it says how to bring the work back where the worktree is (the ref is only on origin there),
        // and that command works.
        const restored = yield* u.orch(["session", "restore", "app-1"])
        assert.strictEqual(restored.code, 0, restored.stderr)
        const ref = "refs/orch/rescue/app-1"
        const bringBack = `git fetch origin ${ref}:${ref} && git checkout ${ref} -- .`
        assert.strictEqual(
          restored.stdout,
          `restored app-1\nwork saved when it was last removed is in ${ref} on origin; bring it back in the session's worktree on host b with: ${bringBack}\n`
        )
        b.shell(`cd ${worktree} && ${bringBack}`)
        assert.strictEqual(b.shell(`cat ${worktree}/notes.txt`).trim(), "half-done work")
      }),
    90_000
  )

  it.effect(
    "a host that cannot read origin is left out for the project, not given the work: spawn goes elsewhere, queued work waits for another host, doctor says why and clears it once fixed",
    () =>
      Effect.gen(function*() {
        if (sshHostsUnavailable !== undefined) return console.log(`skipped: ${sshHostsUnavailable}`)
        const u = yield* freshUser(yield* Installed)
        for (const title of ["Three", "Four", "Five"]) u.emulator.addIssue("acme/app", { title })
        const b = (yield* makeSshHosts(["b"])).hosts[0]!
        // b reaches GitHub as the user's machine does, but its git refuses the repositories (another user owns them).
        chmodSync(u.root, 0o755)
        execFileSync("chmod", ["-R", "a+rwX", join(u.root, "github.com")])
        b.shell(`git config --global core.sshCommand ${join(u.root, "github-ssh")}`)
        yield* initProject(u)
        addHost(u, b)

        // A session here first: it holds its reservation on this machine, so placement picks b, the roomier. b cannot
        // clone: it is left out, the spawn lands here after all, and the user is told once.
        assert.deepStrictEqual((yield* u.orch(["spawn", "app", "1", "--host", "local"])).stdout, "app-1\n")
        const spawned = yield* u.orch(["spawn", "app", "2"])
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        assert.strictEqual(spawned.stdout, "app-2\n")
        assert.match(
          spawned.stderr,
          /^orch: warning: host b could not take the session \(creating the workspace: .*dubious ownership.*\); orch leaves it out for app for now and placed it again\n$/
        )
        const third = yield* u.orch(["spawn", "app", "3"])
        assert.deepStrictEqual([third.stdout, third.stderr], ["app-3\n", ""])
        const rows = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ sessionId: string; host?: string }>
        assert.deepStrictEqual(rows.filter((r) => r.sessionId !== "app-orchestrator").map((r) => r.host ?? "local"), ["local", "local", "local"])
        const hosts = yield* u.orch(["hosts"])
        assert.match(hosts.stdout, /^b is left out for app since \d\d:\d\d UTC: creating the workspace: .*dubious ownership.*; orch tries again at \d\d?:\d\d/m)

        // Queued work is admitted where it can run, never dropped for b's sake.
        assertStarted(yield* u.orch(["start", "app", "--detach", "--no-open"]), "started")
        assert.strictEqual((yield* u.orch(["queue", "add", "app", "4", "5"])).code, 0)
        yield* eventually("both admitted", () => u.events().filter((e) => e.type === "queue.admitted").length === 2, 30_000)
        assert.deepStrictEqual(u.events().filter((e) => e.type === "queue.dropped"), [])
        const placed = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ issueId: string; host?: string }>
        assert.deepStrictEqual(placed.filter((r) => r.issueId === "4" || r.issueId === "5").map((r) => r.host ?? "local"), ["local", "local"])

        // doctor says why b is left out; once b's user may read the repositories, doctor's checks pass and b is back.
        const doctor = yield* u.orch(["doctor", "--no-canary"])
        assert.match(doctor.stdout, /^warn  host b: left out for app: a spawn failed \(creating the workspace: .*dubious ownership.*\); orch tries again /m)
        b.shell("git config --global safe.directory '*'")
        const fixed = yield* u.orch(["doctor", "--no-canary"])
        assert.match(fixed.stdout, /^ok    host b: passes its checks again: orch starts app's sessions there again/m)
        assert.notInclude((yield* u.orch(["hosts"])).stdout, "left out")
        assert.strictEqual((yield* u.orch(["stop", "--kill-sessions"])).code, 0)
      }),
    120_000
  )

  it.effect(
    "in a memory control group with room for 2.5 sessions, 4 queued: 2 start, the others say what is free and what is held",
    () =>
      Effect.gen(function*() {
        if (memoryGroupUnavailable !== undefined) return console.log(`skipped: ${memoryGroupUnavailable}`)
        const group = yield* memoryGroup
        const u = yield* freshUser(yield* Installed)
        for (const title of ["Three", "Four"]) u.emulator.addIssue("acme/app", { title })
        yield* initProject(u)
        const inGroup = (args: ReadonlyArray<string>) => group.orch(args, { cwd: u.repo, env: u.env, installed: true })
        assertStarted(yield* inGroup(["start", "app", "--detach", "--no-open"]), "started")
        yield* Effect.addFinalizer(() => Effect.asVoid(u.orch(["stop", "--kill-sessions"])))
        group.setLimit(group.usage() + 3.5 * 1024 ** 3)
        assert.strictEqual((yield* u.orch(["queue", "add", "app", "1", "2", "3", "4"])).code, 0)
        // Two start; the sessions just started hold their expected size (they have not grown yet), so no more do.
        const held =
          /waiting for memory on this machine: \d\.\d GB free, 1\.0 GB of it kept in reserve, 2 sessions just started counted at 1\.0 GB each until they are measured/
        const admitted = () => u.events().filter((e) => e.type === "queue.admitted").length
        const round = () => Date.parse((JSON.parse(readFileSync(join(u.dataDir, "admission.json"), "utf8")) as { at: string }).at)
        const ls = () => execFileSync("orch", ["queue", "ls"], { cwd: u.repo, env: u.env, encoding: "utf8" })
        yield* eventually("two admitted, the others held back", () => admitted() === 2 && held.test(ls()), 30_000)
        // The rounds after it (every 3 s) start no more: what the first ones started still counts.
        const first = round()
        yield* eventually("two more admission rounds", () => round() >= first + 5_000, 15_000)
        assert.strictEqual(admitted(), 2, "later rounds start no more")
        assert.match(ls(), held)
      }),
    90_000
  )
})
