/**
 * Agents on other machines, end to end through the built CLI (fresh HOME, empty TMUX_TMPDIR, no ORCH_*), on real
 * sshd hosts (test/support/ssh-hosts.ts): a `coding-agent` session on a host gets its prompt files and hooks there,
 * the lines its hooks write there reach `orch status` through the supervisor's probe of the host, and that probe is
 * one round trip per host per cycle whatever the number of projects (counted by the host's sshd itself: it runs
 * ~/.ssh/rc once for every session channel, i.e. every round trip). The last test runs the real Claude Code CLI
 * (the pinned one, a native binary the host's user can run) on a host against the scripted model server on loopback,
 * and the last the real Codex CLI there against the scripted Responses server.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { claudeAgent, writeClaudeHome } from "../agents/claude-env.ts"
import { codexAgent, writeCodexHome } from "../agents/codex-env.ts"
import { startModelServer } from "../agents/model-server.ts"
import { startResponsesServer } from "../agents/responses-server.ts"
import { runOrchAsync } from "../support/cli.ts"
import { tempDir } from "../support/host.ts"
import { freePort } from "../support/ports.ts"
import { makeSshHosts, type SshHost, sshHostsUnavailable } from "../support/ssh-hosts.ts"
import { emptyTmuxTmpdir } from "../support/tmux.ts"

const live = sshHostsUnavailable === undefined ? it.live : it.live.skip
const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, encoding: "utf8" })

/**
 * A stand-in for Claude Code, as far as orch meets it: it runs the hooks of the workspace's
 * `.claude/settings.local.json` as Claude Code does (the event's JSON on the command's stdin), draws Claude Code's
 * ready screen, and takes each line typed as a turn (UserPromptSubmit, then Stop); a line "ask" makes it ask a
 * person (PermissionRequest), which its screen does not show: only its hooks tell.
 */
const FAKE_CLAUDE = `#!/usr/bin/node
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
const settings = JSON.parse(readFileSync(".claude/settings.local.json", "utf8"))
const hook = (event, payload) => {
  for (const group of settings.hooks?.[event] ?? []) {
    for (const h of group.hooks) execFileSync("/bin/sh", ["-c", h.command], { input: JSON.stringify({ hook_event_name: event, ...payload }) })
  }
}
const system = process.argv[process.argv.indexOf("--append-system-prompt") + 1] ?? ""
hook("SessionStart", { system_prompt_start: system.slice(0, 40) })
const ready = () => process.stdout.write("? for shortcuts\\n\\u276f ")
ready()
process.stdin.setEncoding("utf8").on("data", (chunk) => {
  for (const line of chunk.split(/\\r?\\n/).map((l) => l.trim()).filter(Boolean)) {
    hook("UserPromptSubmit", { prompt: line })
    if (line === "ask") hook("PermissionRequest", { tool_name: "Bash" })
    else hook("Stop", {})
  }
  ready()
})
`

interface Setup {
  readonly orch: (...args: Array<string>) => Effect.Effect<{ code: number; stdout: string; stderr: string }>
  readonly home: string
  readonly checkouts: ReadonlyArray<string>
}

/** An origin every host user can clone, a checkout per project, and a config naming the hosts. */
const setUp = (hosts: ReadonlyArray<SshHost>, projects: ReadonlyArray<string>, agent: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const dir = yield* tempDir("orch-remote-agents-")
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
    for (const host of hosts) host.shell("git config --global safe.directory '*'")
    const fake = join(dir, "claude.mjs")
    writeFileSync(fake, FAKE_CLAUDE, { mode: 0o755 })
    const checkouts = projects.map((project) => {
      const checkout = join(dir, project)
      git(dir, "clone", "-q", origin, checkout)
      return checkout
    })
    const home = join(dir, "home")
    const tmux = yield* emptyTmuxTmpdir(join(dir, "tmux"))
    mkdirSync(home)
    const config = join(dir, "orchestrator.yaml")
    writeFileSync(
      config,
      [
        `port: ${yield* freePort}`,
        `terminalPort: ${yield* freePort}`,
        `directTerminalPort: ${yield* freePort}`,
        "hosts:",
        ...hosts.flatMap((host) => [
          `  ${host.name}:`,
          `    ssh: ${host.spec.ssh.user}@${host.spec.ssh.hostname}:${host.spec.ssh.port}`,
          `    identityFile: ${host.spec.identityFile}`,
          `    sshOptions: { UserKnownHostsFile: ${host.spec.sshOptions!.UserKnownHostsFile}, IdentitiesOnly: "yes" }`
        ]),
        "projects:",
        ...projects.flatMap((project, i) => [
          `  ${project}:`,
          `    repo: t/${project}`,
          `    path: ${checkouts[i]}`,
          "    tracker: { plugin: none }",
          "    scm: { plugin: none }",
          ...agent.map((line) => `    ${line.replace("$FAKE", fake)}`)
        ])
      ].join("\n") + "\n"
    )
    const orch = (...args: Array<string>) => runOrchAsync(args, { cwd: checkouts[0]!, env: { HOME: home, TMUX_TMPDIR: tmux, ORCH_CONFIG_PATH: config } })
    // The supervisor a test started goes with the test, passed or not.
    yield* Effect.addFinalizer(() => Effect.asVoid(orch("stop")))
    return { orch, home, checkouts } satisfies Setup
  })

interface Row {
  readonly sessionId: string
  readonly host: string
  readonly activity: string
  readonly said?: { readonly by: string }
}

const statusRow = (orch: Setup["orch"], sessionId: string) =>
  Effect.map(orch("status", "--json"), (out) => (JSON.parse(out.stdout) as Array<Row>).find((row) => row.sessionId === sessionId))

/** Asks again every 200 ms for up to `seconds`, until `check` holds. */
const eventually = <A, E>(effect: Effect.Effect<A, E>, check: (a: A) => boolean, what: string, seconds = 20) =>
  effect.pipe(
    Effect.filterOrFail(check, (a) => `${what}; last: ${JSON.stringify(a)}`),
    Effect.retry({ schedule: Schedule.spaced("200 millis"), times: seconds * 5 })
  )

describe(`agents on other hosts through the CLI${sshHostsUnavailable ? ` (skipped: ${sshHostsUnavailable})` : ""}`, () => {
  live(
    "a coding-agent session on host b: prompt files and hooks made there, its hooks' lines reach orch status through the supervisor",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["b"])
        const b = pool.hosts[0]!
        const { orch, home } = yield* setUp(pool.hosts, ["proj"], ["agent: coding-agent", "agentConfig: { command: $FAKE }"])
        // ORCH_CONFIG_PATH points at the config; a supervisor's config is found the same way.
        const started = yield* orch("start", "proj", "--detach", "--no-open")
        assert.strictEqual(started.code, 0, started.stderr)

        const spawned = yield* orch("spawn", "proj", "--task", "say hello", "--host", "b", "--json")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        const record = JSON.parse(spawned.stdout) as { sessionId: string; host: string; workspacePath: string }
        assert.strictEqual(record.host, "b")

        // The session's files are on b, under its data dir, as they are here under ours.
        const there = `${b.home}/.orchestrator/sessions/proj/${record.sessionId}`
        assert.include(b.shell(`cat ${there}/prompt.md`), "say hello")
        assert.strictEqual(
          b.shell(`cat ${there}/system-prompt.md`),
          readFileSync(join(home, ".orchestrator", "sessions", "proj", record.sessionId, "system-prompt.md"), "utf8")
        )
        const settings = JSON.parse(b.shell(`cat ${record.workspacePath}/.claude/settings.local.json`)) as {
          hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
        }
        assert.include(settings.hooks.Stop![0]!.hooks[0]!.command, `>> '${there}/activity.jsonl'`)
        assert.strictEqual(b.shell(`git -C ${record.workspacePath} status --porcelain`), "", "the settings file is kept out of git there")
        // Made by b's user (through the connection), not by this process: the hosts share this machine's disk.
        assert.strictEqual(b.shell(`stat -c %U ${record.workspacePath}/.claude/settings.local.json ${there}/prompt.md`), `${b.user}\n${b.user}\n`)
        assert.isFalse(existsSync(join(home, ".orchestrator", "worktrees", "proj", record.sessionId)), "no local worktree")

        // The hooks wrote on b; the supervisor's probe of b brings the lines here.
        yield* eventually(Effect.sync(() => b.shell(`cat ${there}/activity.jsonl`)), (text) => text.includes("\"Stop\""), "no Stop line on b")
        const first = JSON.parse(b.shell(`head -n 1 ${there}/activity.jsonl`)) as { event: string; payload: { system_prompt_start: string } }
        assert.strictEqual(first.event, "SessionStart")
        assert.isAbove(first.payload.system_prompt_start.length, 0, "the agent read its system prompt from the file on b")
        const mirror = join(home, ".orchestrator", "sessions", "proj", record.sessionId, "activity.jsonl")
        yield* eventually(Effect.sync(() => (existsSync(mirror) ? readFileSync(mirror, "utf8") : "")), (text) => text.includes("say hello"), "not mirrored")

        // Only the hooks can tell this: the agent's screen still shows its prompt.
        assert.strictEqual((yield* orch("send", record.sessionId, "ask")).code, 0)
        const asking = yield* eventually(
          statusRow(orch, record.sessionId),
          (row) => row?.activity === "waiting_input" && row.said?.by === "hook",
          "orch status never showed the hooks' waiting_input"
        )
        assert.strictEqual(asking?.host, "b")
        assert.strictEqual(readFileSync(mirror, "utf8"), b.shell(`cat ${there}/activity.jsonl`), "the mirror holds what b's file holds")

        // The agent's terminal goes on b; restore makes its files there again and starts it: its new hooks' lines
        // arrive like the first ones.
        b.shell(`tmux -S "$HOME/.orchestrator/tmux/default" kill-session -t =${record.sessionId}`)
        b.shell(`rm ${there}/system-prompt.md`)
        yield* eventually(statusRow(orch, record.sessionId), (row) => row?.activity === "exited", "the ended agent was not seen")
        const restored = yield* orch("session", "restore", record.sessionId)
        assert.strictEqual(restored.code, 0, restored.stderr)
        assert.strictEqual(
          b.shell(`cat ${there}/system-prompt.md`),
          readFileSync(join(home, ".orchestrator", "sessions", "proj", record.sessionId, "system-prompt.md"), "utf8")
        )
        yield* eventually(
          statusRow(orch, record.sessionId),
          (row) => row?.activity === "ready" && row.said?.by === "hook",
          "orch status never showed the restored agent's SessionStart"
        )
        assert.strictEqual(readFileSync(mirror, "utf8"), b.shell(`cat ${there}/activity.jsonl`))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    120_000
  )

  live(
    "one probe round trip per host per cycle for two projects' sessions; a frozen host: unknown, never exited, host.down once, orch hosts and status say so, back up; kill -9 of the supervisor adopts them",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["b"])
        const b = pool.hosts[0]!
        const { orch, home } = yield* setUp(pool.hosts, ["one", "two"], ["agent: command", "agentConfig: { command: 'while IFS= read -r l; do :; done' }"])
        for (const project of ["one", "two"]) {
          for (const task of ["first", "second"]) {
            const spawned = yield* orch("spawn", project, "--task", `${project} ${task}`, "--host", "b")
            assert.strictEqual(spawned.code, 0, spawned.stderr)
          }
        }
        // sshd runs ~/.ssh/rc for every session channel: one line per round trip, with its time.
        const trips = `${b.home}/trips`
        b.shell(`printf '%s\\n' 'date +%s.%N >> ${trips}' > ~/.ssh/rc`)
        const started = yield* orch("start", "one", "--detach", "--no-open")
        assert.strictEqual(started.code, 0, started.stderr)
        const times = () => (existsSync(trips) ? readFileSync(trips, "utf8").trim().split("\n").filter(Boolean).map(Number) : [])
        const begin = times().length
        // The start's own trips come first; the last four are probe cycles (5 s apart).
        const seen = yield* eventually(Effect.sync(times), (all) => all.length >= begin + 6, "too few round trips", 60)
        const cycles = seen.slice(-4)
        const gaps = cycles.slice(1).map((t, i) => t - cycles[i]!)
        assert.isTrue(gaps.every((gap) => gap > 3), `round trips closer than a probe cycle: gaps ${gaps.map((g) => g.toFixed(2)).join(", ")} s`)
        const status = yield* orch("status", "--json")
        // Every session was probed (alive), in both projects.
        const rows = (JSON.parse(status.stdout) as Array<Row & { status: string; projectId: string }>).filter((row) => row.host === "b")
        assert.deepStrictEqual(rows.map((row) => row.projectId), ["one", "one", "two", "two"])
        for (const row of rows) assert.notInclude(["unknown", "exited"], row.activity, `${row.sessionId} was not probed alive`)

        // A host that cannot answer leaves its sessions unprobed: never exited, and alive again once it answers.
        yield* b.stop
        const log = join(home, ".orchestrator", "supervisor.log")
        yield* eventually(
          Effect.sync(() => (existsSync(log) ? readFileSync(log, "utf8") : "")),
          (text) => (text.match(/host b: its sessions could not be probed/g) ?? []).length >= 2,
          "the supervisor did not fail to probe b twice",
          60
        )
        const frozen = (JSON.parse((yield* orch("status", "--json")).stdout) as Array<Row & { status: string }>).filter((row) => row.host === "b")
        assert.strictEqual(frozen.length, 4)
        for (const row of frozen) {
          assert.notStrictEqual(row.activity, "exited", row.sessionId)
          assert.notInclude(["killed", "errored", "done"], row.status, row.sessionId)
        }
        // The host watch: host.down once, one urgent notification, orch hosts and orch status say so.
        const events = () =>
          readFileSync(join(home, ".orchestrator", "events.jsonl"), "utf8").trim().split("\n").map((line) =>
            JSON.parse(line) as { type: string; data?: { host?: string } }
          )
        yield* eventually(Effect.sync(events), (all) => all.some((e) => e.type === "host.down" && e.data?.host === "b"), "no host.down for b", 60)
        const hostsNow = JSON.parse((yield* orch("hosts", "--json")).stdout) as Array<
          { host: string; status: string; sessions: Array<string>; lastError?: string }
        >
        expect(hostsNow.find((row) => row.host === "b")).toMatchObject({ status: "down", sessions: frozen.map((row) => row.sessionId).sort() })
        const whileDown = yield* orch("status", "--json")
        assert.match(whileDown.stderr, /orch: warning: host b unreachable since \d\d:\d\d UTC: .* read unknown until it answers; last: host b \(/)
        for (const row of (JSON.parse(whileDown.stdout) as Array<Row>).filter((row) => row.host === "b")) {
          assert.strictEqual(row.activity, "unknown", row.sessionId)
        }
        const listed = JSON.parse((yield* orch("session", "ls", "--json")).stdout) as Array<{ sessionId: string; host: string; runtimeState: string }>
        for (const row of listed.filter((row) => row.host === "b")) assert.strictEqual(row.runtimeState, "unknown", row.sessionId)
        // Asked of a session there: refused with the reason, never taken for a session that is gone.
        for (const command of [["send", frozen[0]!.sessionId, "hello"], ["session", "restore", frozen[0]!.sessionId]]) {
          const refused = yield* orch(...command)
          assert.strictEqual(refused.code, 1, refused.stdout)
          assert.include(refused.stderr, `${frozen[0]!.sessionId} runs on host b, which cannot be reached`)
          assert.include(refused.stderr, "nothing was done to it")
        }
        const beforeResume = times().length
        yield* b.resume
        yield* eventually(
          Effect.sync(times),
          (all) => all.length > beforeResume + 1,
          "b was not probed again once it answered",
          60
        )
        yield* eventually(Effect.sync(events), (all) => all.some((e) => e.type === "host.up" && e.data?.host === "b"), "no host.up for b", 60)
        assert.strictEqual(events().filter((e) => e.type === "host.down").length, 1, "one host.down for the outage")
        const inbox = JSON.parse((yield* orch("notifications", "--json")).stdout) as Array<{ type: string; priority: string }>
        assert.deepStrictEqual(inbox.filter((n) => n.type === "host.down").map((n) => n.priority), ["urgent"])
        expect((JSON.parse((yield* orch("hosts", "--json")).stdout) as Array<{ host: string; status: string }>).find((row) => row.host === "b")).toMatchObject({
          status: "up"
        })

        // kill -9 of the supervisor, started again at once: every session on b adopted as it is, and reachable.
        process.kill(Number(/pid (\d+)/.exec(started.stdout)?.[1]), "SIGKILL")
        const again = yield* orch("start", "one", "--detach", "--no-open")
        assert.strictEqual(again.code, 0, again.stderr)
        const pid = Number(/pid (\d+)/.exec(again.stdout)?.[1])
        const adopted = yield* eventually(
          Effect.sync(() => events().find((e) => e.type === "supervisor.adopted" && (e.data as { pid?: number } | undefined)?.pid === pid)),
          (event) => event !== undefined,
          "the restarted supervisor did not report its first probe",
          60
        )
        expect(adopted!.data).toMatchObject({ unknown: 0, exited: 0, gone: 0 })
        const remote = frozen.map((row) => row.sessionId)
        const afterRestart = (JSON.parse((yield* orch("status", "--json")).stdout) as Array<Row & { status: string }>).filter((row) => row.host === "b")
        assert.deepStrictEqual(afterRestart.map((row) => row.sessionId).sort(), [...remote].sort())
        for (const row of afterRestart) assert.notInclude(["unknown", "exited"], row.activity, row.sessionId)
        const sent = yield* orch("send", remote[0]!, "still there?")
        assert.strictEqual(sent.code, 0, sent.stderr)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    200_000
  )
  live(
    "the real Claude Code CLI on host b: its system prompt read there, its tool run in the host's worktree, its hooks' lines in orch status",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["b"])
        const b = pool.hosts[0]!
        const model = yield* Effect.acquireRelease(
          Effect.promise(() =>
            startModelServer([{
              when: "say hello",
              steps: [{ tools: [{ tool: "Bash", input: { command: "echo hi > hello.txt", description: "hello" } }] }, { text: "Done." }]
            }])
          ),
          (m) => Effect.promise(() => m.close())
        )
        const agent = claudeAgent(model.url)
        const { orch, home, checkouts } = yield* setUp(pool.hosts, ["proj"], [`agent: ${agent.agent}`, `agentConfig: ${JSON.stringify(agent.agentConfig)}`])
        // Claude Code's one-time questions, answered for b's user (trust of b's clone covers its worktrees) and here
        // (the orchestrator `orch start` runs locally).
        writeClaudeHome(b.home, [`${b.home}/.orchestrator/repos/proj`])
        chownSync(join(b.home, ".claude.json"), b.uid, Number(b.shell("id -g").trim()))
        writeClaudeHome(home, [checkouts[0]!])
        const started = yield* orch("start", "proj", "--detach", "--no-open")
        assert.strictEqual(started.code, 0, started.stderr)

        const spawned = yield* orch("spawn", "proj", "--task", "say hello", "--host", "b", "--json")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        const record = JSON.parse(spawned.stdout) as { sessionId: string; workspacePath: string }
        const first = yield* eventually(Effect.sync(() => model.mainRequests(record.workspacePath)[0]), (r) => r !== undefined, "no model call from b", 60)
        assert.include(first!.system, `in session ${record.sessionId} managed by orch`, "the system prompt file on b reached the model")
        yield* eventually(
          Effect.sync(() => b.shell(`cat ${record.workspacePath}/hello.txt 2>/dev/null || true`)),
          (t) => t === "hi\n",
          "the tool did not run on b",
          60
        )
        const row = yield* eventually(
          statusRow(orch, record.sessionId),
          (r) => r?.activity === "ready" && r.said?.by === "hook",
          "orch status never showed the hooks' ready",
          60
        )
        assert.strictEqual(row?.host, "b")
        const mirror = readFileSync(join(home, ".orchestrator", "sessions", "proj", record.sessionId, "activity.jsonl"), "utf8")
        const events = mirror.trim().split("\n").map((line) => (JSON.parse(line) as { event: string }).event)
        for (const event of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]) assert.include(events, event)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    180_000
  )
  live(
    "the real Codex CLI on host b: its instructions file made there, its shell tool run in the host's worktree, ready read off its screen there",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["b"])
        const b = pool.hosts[0]!
        const model = yield* Effect.acquireRelease(
          Effect.promise(() => startResponsesServer([{ when: "say hello", steps: [{ shell: ["echo hi > hello.txt && echo wrote"] }, { text: "Wrote it." }] }])),
          (m) => Effect.promise(() => m.close())
        )
        const agent = codexAgent("skip")
        const { orch } = yield* setUp(pool.hosts, ["proj"], [`agent: ${agent.agent}`, `agentConfig: ${JSON.stringify(agent.agentConfig)}`])
        // Codex's provider and the trust of b's clone (which covers its worktrees), for b's user.
        writeCodexHome(b.home, model.url, [`${b.home}/.orchestrator/repos/proj`])
        execFileSync("chown", ["-R", `${b.uid}:${b.shell("id -g").trim()}`, join(b.home, ".codex")])
        const started = yield* orch("start", "proj", "--detach", "--no-open")
        assert.strictEqual(started.code, 0, started.stderr)

        const spawned = yield* orch("spawn", "proj", "--task", "say hello", "--host", "b", "--json")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        const record = JSON.parse(spawned.stdout) as { sessionId: string; workspacePath: string }
        assert.isTrue(record.workspacePath.startsWith(`${b.home}/.orchestrator/worktrees/`), record.workspacePath)
        const first = yield* eventually(Effect.sync(() => model.mainRequests(record.workspacePath)[0]), (r) => r !== undefined, "no model call from b", 60)
        assert.isTrue(
          first!.developerTexts.some((t) => t.includes(`in session ${record.sessionId} managed by orch`)),
          "the instructions file on b reached the model"
        )
        assert.include(first!.userTexts.at(-1), "say hello", "the task, typed in once Codex was ready on b")
        yield* eventually(
          Effect.sync(() => b.shell(`cat ${record.workspacePath}/hello.txt 2>/dev/null || true`)),
          (t) => t === "hi\n",
          "the shell tool did not run in b's worktree",
          60
        )
        const row = yield* eventually(statusRow(orch, record.sessionId), (r) => r?.activity === "ready", "orch status never read ready off b's screen", 60)
        assert.strictEqual(row?.host, "b")
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    180_000
  )
})
