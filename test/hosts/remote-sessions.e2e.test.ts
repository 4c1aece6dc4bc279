/**
 * Sessions on other machines, end to end through the built CLI (fresh HOME, empty TMUX_TMPDIR, no ORCH_*), on real
 * sshd hosts (test/support/ssh-hosts.ts) that get the code from the project's origin.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ORCH_BIN, runOrch, runOrchAsync } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"
import { freePort } from "../support/ports.ts"
import { makeSshHosts, type SshHost, sshHostsUnavailable } from "../support/ssh-hosts.ts"
import { emptyTmuxTmpdir } from "../support/tmux.ts"

const live = sshHostsUnavailable === undefined ? it.live : it.live.skip
const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, encoding: "utf8" })

/** An origin every host user can clone and push to, a local checkout of it, and a config naming the hosts. */
const setUp = (hosts: ReadonlyArray<SshHost>, extra: { readonly maxSessions?: number; readonly projectHosts?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function*() {
    const dir = yield* tempDir("orch-remote-e2e-")
    chmodSync(dir, 0o755)
    const origin = join(dir, "origin.git")
    const seed = join(dir, "seed")
    mkdirSync(seed)
    git(seed, "init", "-q", "-b", "main")
    writeFileSync(join(seed, "README.md"), "hello\n")
    git(seed, "add", ".")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seed")
    git(dir, "clone", "-q", "--bare", seed, origin)
    execFileSync("chmod", ["-R", "a+rwX", origin])
    const checkout = join(dir, "proj")
    git(dir, "clone", "-q", origin, checkout)
    // The hosts' users trust the shared origin (it belongs to another user), as a host's git config would.
    for (const host of hosts) host.shell("git config --global safe.directory '*'")
    const home = join(dir, "home")
    const tmux = yield* emptyTmuxTmpdir(join(dir, "tmux"))
    mkdirSync(home)
    const hostLines = hosts.flatMap((host) => [
      `  ${host.name}:`,
      `    ssh: ${host.spec.ssh.user}@${host.spec.ssh.hostname}:${host.spec.ssh.port}`,
      `    identityFile: ${host.spec.identityFile}`,
      `    sshOptions: { UserKnownHostsFile: ${host.spec.sshOptions!.UserKnownHostsFile}, IdentitiesOnly: "yes" }`,
      ...(extra.maxSessions !== undefined ? [`    maxSessions: ${extra.maxSessions}`] : [])
    ])
    // Free ports, for a test that starts the supervisor (this machine's 3000 may be taken).
    const ports = [`port: ${yield* freePort}`, `terminalPort: ${yield* freePort}`, `directTerminalPort: ${yield* freePort}`]
    writeFileSync(
      join(checkout, "orchestrator.yaml"),
      [
        ...ports,
        "hosts:",
        ...hostLines,
        "projects:",
        "  proj:",
        "    repo: t/proj",
        `    path: ${checkout}`,
        "    tracker: { plugin: none }",
        "    scm: { plugin: none }",
        "    agent: command",
        ...(extra.projectHosts !== undefined ? [`    hosts: [${extra.projectHosts.join(", ")}]`] : []),
        "    agentConfig:",
        `      command: 'while IFS= read -r line; do echo "got: $line"; done'`
      ].join("\n") + "\n"
    )
    const orch = (...args: Array<string>) => runOrchAsync(args, { cwd: checkout, env: { HOME: home, TMUX_TMPDIR: tmux } })
    return { origin, orch, dir, checkout, home, tmux }
  })

const screenOn = (host: SshHost, sessionId: string) => host.shell(`tmux -S "$HOME/.orchestrator/tmux/default" capture-pane -p -t =${sessionId}:`)

describe(`sessions on other hosts through the CLI${sshHostsUnavailable ? ` (skipped: ${sshHostsUnavailable})` : ""}`, () => {
  live(
    "spawn --host b runs the agent in a worktree on b; send arrives; orch attach opens it here; status shows b; kill saves dirty work to origin and removes the worktree",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["a", "b"])
        const b = pool.hosts[1]!
        const env = yield* setUp(pool.hosts)
        const { orch, origin } = env

        // A host name misspelt: a usage error that names the hosts, before anything is made.
        const misspelt = yield* orch("spawn", "proj", "--task", "say hello", "--host", "bb")
        assert.strictEqual(misspelt.code, 2, misspelt.stdout)
        assert.include(misspelt.stderr, "there is no host named bb (did you mean \"b\"?); the project's hosts are local, ")

        // b's sshd runs ~/.ssh/rc once per channel: a line per round trip.
        b.shell(`printf '%s\\n' 'echo trip >> ~/trips' > ~/.ssh/rc`)
        const spawned = yield* orch("spawn", "proj", "--task", "say hello", "--host", "b", "--json")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        assert.strictEqual(b.shell("cat ~/trips").trim().split("\n").length, 2, "the headroom read, then one script from the worktree to the agent started")
        b.shell("rm ~/.ssh/rc")
        const record = JSON.parse(spawned.stdout) as { sessionId: string; host: string; workspacePath: string }
        assert.strictEqual(record.host, "b")
        assert.isTrue(record.workspacePath.startsWith(`${b.home}/.orchestrator/worktrees/`), record.workspacePath)
        assert.strictEqual(b.shell(`git -C ${record.workspacePath} rev-parse --abbrev-ref HEAD`).trim(), "feat/say-hello")

        const sent = yield* orch("send", record.sessionId, "hi there")
        assert.strictEqual(sent.code, 0, sent.stderr)
        // The send confirmed the agent took it; its echo is read off the host's tmux.
        yield* Effect.sync(() => screenOn(b, record.sessionId)).pipe(
          Effect.filterOrFail((screen) => screen.includes("got: hi there"), () => "no echo yet"),
          Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 })
        )

        // orch attach from a terminal here (a pane of a tmux server of the test's own) opens b's tmux session.
        const outer = join(env.dir, "outer.sock")
        yield* Effect.addFinalizer(() => Effect.sync(() => execFileSync("tmux", ["-S", outer, "kill-server"], { stdio: "ignore" })))
        execFileSync("tmux", [
          "-S",
          outer,
          "new-session",
          "-d",
          "-x",
          "120",
          "-y",
          "30",
          `cd ${env.checkout} && env HOME=${env.home} TMUX_TMPDIR=${env.tmux} ${process.execPath} ${ORCH_BIN} attach ${record.sessionId}; echo "attach exited $?"; sleep 60`
        ])
        const outerScreen = () => execFileSync("tmux", ["-S", outer, "capture-pane", "-p"], { encoding: "utf8" })
        yield* Effect.sync(outerScreen).pipe(
          Effect.filterOrFail((screen) => screen.includes("got: hi there"), () => "the remote screen is not in the outer terminal yet"),
          Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 100 })
        )
        b.shell(`tmux -S "$HOME/.orchestrator/tmux/default" detach-client -s ${record.sessionId}`)
        yield* Effect.sync(outerScreen).pipe(
          Effect.filterOrFail((screen) => screen.includes("attach exited 0"), () => "attach has not returned"),
          Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 100 })
        )

        const status = yield* orch("status", "--json")
        assert.strictEqual(status.code, 0, status.stderr)
        assert.deepStrictEqual((JSON.parse(status.stdout) as Array<{ sessionId: string; host: string }>).map((r) => [r.sessionId, r.host]), [[
          record.sessionId,
          "b"
        ]])
        const table = yield* orch("status")
        assert.match(table.stdout, /HOST/)

        b.shell(`echo unsaved > ${record.workspacePath}/dirty.txt`)
        // An origin the host may not push to: the agent is stopped, the worktree and its work are kept, git's reason said.
        execFileSync("chmod", ["-R", "go-w", origin])
        const refused = yield* orch("session", "kill", record.sessionId)
        execFileSync("chmod", ["-R", "a+rwX", origin])
        assert.strictEqual(refused.code, 1, refused.stdout)
        assert.include(refused.stderr, `${record.sessionId}: its agent is stopped, but its worktree could not be saved and removed (`)
        assert.match(
          refused.stderr,
          new RegExp(`pushing refs/orch/rescue/${record.sessionId} to origin failed \\(.*(denied|rejected|error).*\\); the worktree is kept`)
        )
        assert.strictEqual(b.shell(`cat ${record.workspacePath}/dirty.txt`), "unsaved\n")
        const afterRefused = JSON.parse((yield* orch("status", "--json")).stdout) as Array<{ sessionId: string; activity: string }>
        assert.strictEqual(afterRefused.find((row) => row.sessionId === record.sessionId)?.activity, "exited")

        // origin moved since the spawn (the checkout names another): the work is saved where origin is now.
        const moved = join(env.dir, "moved.git")
        git(env.dir, "clone", "-q", "--bare", origin, moved)
        execFileSync("chmod", ["-R", "a+rwX", moved])
        git(env.checkout, "remote", "set-url", "origin", moved)
        const killed = yield* orch("session", "kill", record.sessionId)
        assert.strictEqual(killed.code, 0, killed.stderr)
        const ref = `refs/orch/rescue/${record.sessionId}`
        assert.match(
          killed.stdout,
          new RegExp(
            `^killed ${record.sessionId}; unsaved work saved to ${ref} on origin, pushed from host b \\(commit [0-9a-f]{12}; \`git fetch origin ${ref}:${ref}\` brings it here\\)\n$`
          )
        )
        assert.strictEqual(git(moved, "show", `${ref}:dirty.txt`), "unsaved\n", "the dirty file is on origin's rescue ref")
        assert.strictEqual(b.shell(`test -e ${record.workspacePath} && echo there || echo gone`).trim(), "gone")
        assert.strictEqual(
          b.shell(`tmux -S "$HOME/.orchestrator/tmux/default" has-session -t =${record.sessionId} 2>/dev/null && echo alive || echo gone`).trim(),
          "gone"
        )
      }).pipe(Effect.provide(NodeServices.layer)),
    120_000
  )

  live("orch doctor checks each host: it answers, with tmux and git there, or says what is missing", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"], { withoutTmux: ["b"] })
      const { orch } = yield* setUp(pool.hosts)
      const doctor = yield* orch("doctor", "--no-canary")
      assert.match(doctor.stdout, /^ok {4}host a: answers; \d+ MB of memory free, load [\d.]+ on \d+ cores, tmux \S+, git version \S+$/m)
      assert.include(doctor.stdout, "fail  host b: answers, but tmux is not installed there; install it on the host\n")
      assert.strictEqual(doctor.code, 1, doctor.stdout)

      // a's user may no longer read origin (a repository another user owns, without safe.directory): git's reason.
      pool.hosts[0]!.shell("git config --global --unset-all safe.directory")
      const unreadable = yield* orch("doctor", "--no-canary")
      assert.match(
        unreadable.stdout,
        /^fail {2}host a: answers, but cannot read the origin of proj \S+origin\.git: fatal: detected dubious ownership in repository at '\S+'; the host's user needs read and push access to it/m
      )

      const spawned = yield* orch("spawn", "proj", "--task", "try a", "--host", "a")
      assert.strictEqual(spawned.code, 1, spawned.stdout)
      assert.match(
        spawned.stderr,
        /git clone \S+ failed: fatal: detected dubious ownership in repository at '(\S+)'; on the host, as its user: git config --global --add safe\.directory \S+origin\.git/
      )

      // a's data dir may not be written by its user: said before any spawn finds out.
      pool.hosts[0]!.shell("mkdir -p ~/.orchestrator && chmod 500 ~/.orchestrator")
      const readOnly = yield* orch("doctor", "--no-canary")
      assert.match(
        readOnly.stdout,
        /^fail {2}host a: answers, but orch's data dir there cannot be used \(touch: cannot touch '\S+\/\.orchestrator\/\.orch-doctor': Permission denied\); set the host's dataDir to a directory its user may write$/m
      )
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  live("placement honours maxSessions: two spawns go to two hosts, a third fits nowhere and says each host's reason", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"])
      const { orch } = yield* setUp(pool.hosts, { maxSessions: 1, projectHosts: ["a", "b"] })
      const hosts: Array<string> = []
      for (const task of ["first task", "second task"]) {
        const spawned = yield* orch("spawn", "proj", "--task", task, "--json")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        hosts.push((JSON.parse(spawned.stdout) as { host: string }).host)
      }
      assert.deepStrictEqual([...hosts].sort(), ["a", "b"])
      const third = yield* orch("spawn", "proj", "--task", "third task")
      assert.notStrictEqual(third.code, 0)
      assert.include(third.stderr, "no host can take the session: local: the project may not use it")
      assert.include(third.stderr, "a: it runs 1 session, its maxSessions 1")
      assert.include(third.stderr, "b: it runs 1 session, its maxSessions 1")
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  live("a project whose checkout has no origin stays on this machine: placement says why no host can take it", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a"])
      const { orch, checkout } = yield* setUp(pool.hosts)
      git(checkout, "remote", "remove", "origin")
      const spawned = yield* orch("spawn", "proj", "--task", "stays here", "--json")
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.isUndefined((JSON.parse(spawned.stdout) as { host?: string }).host, "a local session names no host")
      const forced = yield* orch("spawn", "proj", "--task", "goes there", "--host", "a")
      assert.strictEqual(forced.code, 1, forced.stdout)
      assert.include(forced.stderr, "host a cannot take the session: the project's checkout has no origin remote, which a host gets the code from")
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  live("a host placement could not read is named as left out, and the session goes where it fits", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a"])
      const { orch } = yield* setUp(pool.hosts)
      yield* pool.hosts[0]!.kill
      const spawned = yield* orch("spawn", "proj", "--task", "somewhere")
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.match(spawned.stderr, /^orch: warning: host a was left out: host a \(\S+\) refused the connection/m)
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  live("the supervisor admits queued issues one at a time onto two equal hosts: each takes two of four", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"])
      const { orch, checkout, home, tmux } = yield* setUp(pool.hosts, { projectHosts: ["a", "b"] })
      const started = yield* orch("start", "proj", "--detach", "--no-open")
      assert.strictEqual(started.code, 0, started.stderr)
      yield* Effect.addFinalizer(() => Effect.asVoid(orch("stop", "--kill-sessions")))
      assert.strictEqual((yield* orch("queue", "add", "proj", "1", "2", "3", "4")).code, 0)
      // Both hosts are this machine's users: their headroom is the same, each spawn reads it afresh, and an agent
      // that just started has not grown. What the last admission placed holds its reservation on its host.
      const rows = yield* eventually("four sessions running on the hosts", () => {
        const all = JSON.parse(runOrch(["status", "--json"], { cwd: checkout, env: { HOME: home, TMUX_TMPDIR: tmux } }).stdout) as Array<
          { issueId: string; host?: string; status: string }
        >
        const workers = all.filter((r) => ["1", "2", "3", "4"].includes(r.issueId) && r.status !== "spawning")
        return workers.length === 4 && workers
      }, 60_000)
      assert.deepStrictEqual(rows.map((r) => r.host).toSorted(), ["a", "a", "b", "b"], rows.map((r) => `${r.issueId} on ${r.host}`).join(", "))
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  live("batch-spawn places each issue in turn on one reading per host: four spread two and two, a fifth fits nowhere", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"])
      const { orch, checkout, home, tmux } = yield* setUp(pool.hosts, { maxSessions: 2, projectHosts: ["a", "b"] })
      const batch = yield* orch("batch-spawn", "proj", "1", "2", "3", "4")
      assert.strictEqual(batch.code, 0, batch.stdout + batch.stderr)
      const lines = batch.stdout.trim().split("\n")
      assert.strictEqual(lines.at(-1), "created 4, skipped 0, failed 0")
      const placed = lines.slice(0, -1).map((line) => /, on host (\w+)\)$/.exec(line)?.[1])
      assert.deepStrictEqual([...placed].sort(), ["a", "a", "b", "b"], batch.stdout)
      // One headroom reading per host for the whole batch: each host's sshd saw one connection (the master).
      for (const host of pool.hosts) assert.strictEqual(host.log().filter((line) => line.includes("Accepted publickey")).length, 1, host.name)

      // A fifth fits nowhere: it waits in the queue, saying why.
      const fifth = yield* orch("batch-spawn", "proj", "5")
      assert.strictEqual(fifth.code, 0, fifth.stdout + fifth.stderr)
      assert.match(
        fifth.stdout,
        /^5: queued as q-\d+, position 1 \(waiting for a host: no host can take the session: local: the project may not use it \(its hosts: a, b\); a: it runs 2 sessions, its maxSessions 2; b: it runs 2 sessions, its maxSessions 2\)$/m
      )
      assert.include(fifth.stdout, "created 0, skipped 0, failed 0, queued 1")

      // The supervisor admits it once a host has room: placement on the host watch's figures, the spawn reading its host.
      const started = yield* orch("start", "proj", "--detach", "--no-open")
      assert.strictEqual(started.code, 0, started.stderr)
      yield* Effect.addFinalizer(() => Effect.asVoid(orch("stop")))
      const onA = (JSON.parse((yield* orch("status", "--json")).stdout) as Array<{ sessionId: string; host?: string; issueId: string }>).find((r) =>
        r.host === "a"
      )!
      assert.strictEqual((yield* orch("session", "kill", onA.sessionId)).code, 0)
      const admitted = yield* eventually("issue 5 admitted and running on a", () => {
        const rows = JSON.parse(runOrch(["status", "--json"], { cwd: checkout, env: { HOME: home, TMUX_TMPDIR: tmux } }).stdout) as Array<
          { issueId: string; host?: string; status: string }
        >
        return rows.find((r) => r.issueId === "5" && r.host === "a" && r.status !== "killed")
      }, 30_000)
      assert.strictEqual(admitted.host, "a")
      // Its entry leaves the queue once the session is whole (queue.admitted), not before.
      yield* eventually("the entry admitted and gone from the queue", () =>
        runOrch(["queue", "ls", "--json"], { cwd: checkout, env: { HOME: home, TMUX_TMPDIR: tmux } }).stdout.trim() === "[]", 30_000)
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)
})
