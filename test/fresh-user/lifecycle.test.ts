/**
 * The supervisor's life as a user meets it, on the default path: the built CLI from the project's directory, a
 * fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable, the config in the repository's own orchestrator.yaml.
 * `orch start` with the one project left out; two starts at once (one starts, the other joins, each says so);
 * Ctrl-C, SIGTERM and SIGHUP on a foreground supervisor (a clean stop, 130/143/129); what the log says after a
 * stop; webhooks and the API's failures; a PR poll whose repohost answers 404 (one line, no flood); Ctrl-C
 * during a spawn, with and without a supervisor.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createConnection, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { stringify } from "yaml"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { is, liveStream } from "../dashboard/client.ts"
import { blockedPostCreate, BLOCKING_POST_CREATE } from "../support/blocking-post-create.ts"
import { ORCH_BIN } from "../support/cli.ts"
import { eventually, processGone } from "../support/eventually.ts"
import { foreground } from "../support/foreground.ts"
import { makeRepo } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"

type Sandbox = Effect.Success<typeof userSandbox>

const STARTED = /^supervisor started \(pid (\d+)\)$/m
const JOINED = /^joined the supervisor already running \(pid (\d+)\)$/m
const READY = "stops the supervisor"
const STOPPED_BY_SIGNAL = "supervisor stopped; agent sessions keep running (a new `orch start` adopts them)\n"

const pidIn = (pattern: RegExp, stdout: string) => Number(pattern.exec(stdout)?.[1])
const inRepo = (s: Sandbox) => (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })

/** A process still running this sandbox's `orch start` (a zombie is not). */
const running = (pid: number) => !processGone(pid) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z")

/** Kills a blocked postCreate when the test ends. */
const killAtEnd = (pid: number) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // ended already
      }
    })
  )

/**
 * A raw TCP connection that keeps its side open until the test ends, even once the server has ended its own;
 * `onAnswer` is called for each HTTP answer that arrives.
 */
const rawConnection = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<Socket>((resume) => {
      const socket = createConnection({ host: "127.0.0.1", port, allowHalfOpen: true }, () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket.destroy())
  ).pipe(Effect.map((socket) => {
    let received = ""
    let ended = false
    let onAnswer = () => {}
    // An answer's status line follows the last answer's body, on the same line when that has no final newline.
    const answers = () => received.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0
    socket.on("data", (chunk) => {
      const before = answers()
      received += chunk.toString()
      for (let n = answers() - before; n > 0; n--) onAnswer()
    })
    // The server ends the connection (FIN), or resets it when it closes with bytes of ours still unread.
    socket.on("end", () => void (ended = true))
    socket.on("error", () => void (ended = true))
    return {
      write: (text: string) => void (socket.writable && socket.write(text)),
      onAnswer: (f: () => void) => void (onAnswer = f),
      answers,
      received: () => received,
      ended: () => ended
    }
  }))

/** The repohost emulator serving the sandbox's repository, closed with the test. */
const emulatorFor = (s: Sandbox) =>
  Effect.acquireRelease(
    Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
    (emulator) => Effect.promise(() => emulator.close())
  )

describe("the supervisor's life on the default path", () => {
  it.live("orch start with the config's one project left out starts it (also --detach); with two, it asks which", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const orch = inRepo(s)
      const started = yield* orch("start", "--detach", "--no-open")
      assert.strictEqual(started.code, 0, started.stderr)
      assert.strictEqual(started.stderr, "")
      const pid = pidIn(STARTED, started.stdout)
      assert.isTrue(Number.isInteger(pid), started.stdout)
      assert.include(started.stdout, "orchestrator session app-orchestrator started for app\n")
      // A foreground start with a supervisor running joins it and returns.
      const joined = yield* orch("start", "--no-open")
      assert.strictEqual(joined.code, 0, joined.stderr)
      assert.strictEqual(pidIn(JOINED, joined.stdout), pid)
      assert.include(joined.stdout, "orchestrator session app-orchestrator is already running for app\n")
      assert.strictEqual((yield* orch("stop")).code, 0)

      const web = makeRepo(s.root, "web")
      const file = join(s.repo.path, "orchestrator.yaml")
      writeFileSync(file, stringify({ ...s.ports, projects: { app: s.project(), web: s.project({ repo: "acme/web", path: web.path }) } }))
      const ambiguous = yield* orch("start", "--detach", "--no-open")
      assert.deepStrictEqual(ambiguous, {
        code: 2,
        stdout: "",
        stderr: `orch: say which project: \`orch start <project>\` (${file} has 2: app, web)\n`
      })
      const named = yield* orch("start", "web", "--detach", "--no-open")
      assert.strictEqual(named.code, 0, named.stderr)
      assert.include(named.stdout, "orchestrator session web-orchestrator started for web\n")
      // Joining the supervisor now running, the project left out is the same usage error (the supervisor's answer).
      assert.deepStrictEqual(yield* orch("start", "--detach", "--no-open"), ambiguous)
      assert.strictEqual((yield* orch("stop")).code, 0)
    }), 90_000)

  it.live("two orch start at once, in the background and in the foreground: one starts the supervisor, the other joins it", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const orch = inRepo(s)
      const both = yield* Effect.all([orch("start", "--detach", "--no-open"), orch("start", "--detach", "--no-open")], { concurrency: 2 })
      for (const run of both) assert.strictEqual(run.code, 0, run.stderr)
      const starter = both.find((run) => STARTED.test(run.stdout))
      const joiner = both.find((run) => JOINED.test(run.stdout))
      assert.isDefined(starter, both.map((run) => run.stdout).join("\n---\n"))
      assert.isDefined(joiner, both.map((run) => run.stdout).join("\n---\n"))
      assert.strictEqual(pidIn(JOINED, joiner!.stdout), pidIn(STARTED, starter!.stdout), "both name the one supervisor")
      assert.strictEqual((yield* orch("stop")).code, 0)

      const [a, b] = yield* Effect.all([
        foreground(["start", "--no-open"], { cwd: s.repo.path, env: s.env }),
        foreground(["start", "--no-open"], { cwd: s.repo.path, env: s.env })
      ])
      const joinedFg = yield* eventually("one start to join", () => [a!, b!].find((run) => JOINED.test(run.stdout())), 30_000)
      const owner = joinedFg === a ? b! : a!
      assert.deepStrictEqual(yield* joinedFg.exited, { code: 0, signal: null }, joinedFg.stderr())
      yield* eventually("the other to supervise", () => owner.stdout().includes(READY), 30_000)
      assert.strictEqual(pidIn(STARTED, owner.stdout()), owner.pid)
      assert.strictEqual(pidIn(JOINED, joinedFg.stdout()), owner.pid)
      assert.notMatch(joinedFg.stdout(), STARTED)
      owner.signal("SIGINT")
      assert.deepStrictEqual(yield* owner.exited, { code: 130, signal: null })
    }), 120_000)

  it.live("a foreground supervisor stops cleanly on Ctrl-C, SIGTERM and SIGHUP, and exits 130, 143 and 129", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
        const supervisor = yield* foreground(["start", "--no-open"], { cwd: s.repo.path, env: s.env })
        yield* eventually(`the supervisor to be ready (before ${signal})`, () => supervisor.stdout().includes(READY), 30_000)
        assert.strictEqual(pidIn(STARTED, supervisor.stdout()), supervisor.pid)
        supervisor.signal(signal)
        assert.deepStrictEqual(yield* supervisor.exited, { code, signal: null }, `${signal}: ${supervisor.stderr()}`)
        assert.strictEqual(supervisor.stderr(), "", signal)
        assert.isTrue(supervisor.stdout().endsWith(STOPPED_BY_SIGNAL), `${signal}: ${supervisor.stdout()}`)
        assert.isFalse(existsSync(join(s.dataDir, "supervisor.json")), `${signal}: supervisor.json removed`)
        assert.isFalse(existsSync(join(s.dataDir, "orch.sock")), `${signal}: the socket removed`)
        const last = s.events().filter((e) => e.type === "supervisor.started" || e.type === "supervisor.stopped").at(-1)
        assert.deepInclude(last, { type: "supervisor.stopped", message: `pid ${supervisor.pid}` }, signal)
        assert.deepStrictEqual(s.sessions(), ["app-orchestrator"], `${signal}: the agents keep running`)
      }
    }), 120_000)

  it.live("a foreground supervisor whose terminal closes (its pty hung up, writes to it failing) stops cleanly too", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const { spawn } = yield* Effect.promise(() => import("@lydell/node-pty"))
      const terminal = spawn(process.execPath, [ORCH_BIN, "start", "--no-open"], {
        cwd: s.repo.path,
        env: { PATH: process.env.PATH ?? "", ...s.env },
        cols: 120,
        rows: 40
      })
      let screen = ""
      terminal.onData((data) => void (screen += data))
      yield* Effect.addFinalizer(() => Effect.sync(() => !processGone(terminal.pid) && process.kill(terminal.pid, "SIGKILL")))
      yield* eventually("the supervisor to be ready", () => screen.includes(READY), 30_000)
      // The window closes: the terminal's master side goes away, and the supervisor gets SIGHUP (node-pty's
      // destroy(), which its typings leave out).
      const closable = terminal as typeof terminal & { readonly destroy?: unknown }
      assert.isFunction(closable.destroy, "node-pty's terminal can be closed")
      ;(closable.destroy as () => void).call(terminal)
      yield* eventually("the supervisor to end", () => processGone(terminal.pid), 30_000)
      assert.isFalse(existsSync(join(s.dataDir, "supervisor.json")), "supervisor.json removed")
      assert.isFalse(existsSync(join(s.dataDir, "orch.sock")), "the socket removed")
      const last = s.events().filter((e) => e.type === "supervisor.started" || e.type === "supervisor.stopped").at(-1)
      assert.deepInclude(last, { type: "supervisor.stopped", message: `pid ${terminal.pid}` })
      assert.deepStrictEqual(s.sessions(), ["app-orchestrator"], "the agents keep running")
    }), 60_000)

  it.live(
    "after orch stop --kill-sessions the supervisor's log says the sessions were killed; after orch stop, that they keep running",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig()
        const orch = inRepo(s)
        const log = join(s.dataDir, "supervisor.log")
        const lastLine = () => readFileSync(log, "utf8").trimEnd().split("\n").at(-1)
        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        assert.strictEqual((yield* orch("spawn", "app", "--task", "Say hello")).code, 0)
        const killing = yield* orch("stop", "--kill-sessions")
        assert.strictEqual(killing.code, 0, killing.stderr)
        assert.match(killing.stdout, /; 2 session\(s\) killed$/m)
        assert.strictEqual(lastLine(), "supervisor stopped (orch stop --kill-sessions); 2 session(s) killed first")
        assert.deepStrictEqual(s.sessions(), [])

        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        assert.strictEqual((yield* orch("stop")).code, 0)
        assert.strictEqual(lastLine(), "supervisor stopped (orch stop); agent sessions keep running (a new `orch start` adopts them)")
        assert.deepStrictEqual(s.sessions(), ["app-orchestrator"])
      }),
    90_000
  )

  it.live(
    "orch stop ends the supervisor whatever its clients hold open: a connection with a request always under way, a refused socket",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig()
        const orch = inRepo(s)
        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        const { pid } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }
        const token = readFileSync(join(s.dataDir, "token"), "utf8").trim()
        // As a browser's page can keep one: a keep-alive connection that always has a request under way (the next one
        // begun before the answer to the last). Node's `close` leaves it open; once the dashboard no longer answers, its
        // next request waited forever, and the connection kept the stopped supervisor's process alive.
        const dashboard = yield* rawConnection(s.ports.port)
        const request = `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`
        const [begun, rest] = [request.slice(0, 16), request.slice(16)]
        dashboard.onAnswer(() => setTimeout(() => dashboard.write(`${rest}${begun}`), 50))
        dashboard.write(`${request}${begun}`)
        yield* eventually("the dashboard's first answer", () => dashboard.answers() > 0)
        // A terminal socket refused (no token) whose client never closes its side: the stop waited for it.
        const terminal = yield* rawConnection(s.ports.terminalPort)
        terminal.write(
          "GET /terminal/app-orchestrator HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        yield* eventually("the terminal socket refused", () => terminal.ended())
        assert.match(terminal.received(), /^HTTP\/1\.1 401 Unauthorized/)

        const stopped = yield* orch("stop")
        assert.strictEqual(stopped.code, 0, stopped.stderr)
        assert.isTrue(processGone(pid) || !running(pid), "the supervisor's process ended")
        yield* eventually("the busy connection ended by the supervisor", () => dashboard.ended())
      }),
    90_000
  )

  it.live(
    "orch stop with a dashboard page's live stream open: the stream ends whole with `stopping`, the stop does not wait on it",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig()
        const orch = inRepo(s)
        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        const token = readFileSync(join(s.dataDir, "token"), "utf8").trim()
        const live = yield* liveStream(`http://127.0.0.1:${s.ports.port}`, token)
        yield* live.next("the snapshot", is("snapshot"))
        const ended = yield* Effect.forkChild(live.toEnd)
        const stopped = yield* orch("stop")
        const returned = Date.now()
        assert.strictEqual(stopped.code, 0, stopped.stderr)
        const end = yield* Fiber.join(ended)
        assert.deepStrictEqual([end.how, end.kinds.at(-1)], ["ended", "stopping"])
        assert.isAtMost(end.at, returned)
        // The log says when a stop waited out the dashboard's grace: this one did not.
        assert.notInclude(readFileSync(join(s.dataDir, "supervisor.log"), "utf8"), "grace")
      }),
    60_000
  )

  it.live(
    "three agents found dead in one probe round: two notifications (the first, then one naming the other two); each session and exit kept",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig()
        const orch = inRepo(s)
        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        yield* Effect.addFinalizer(() => Effect.asVoid(orch("stop", "--kill-sessions")))
        for (const issue of ["1", "2", "3"]) assert.strictEqual((yield* orch("spawn", "app", issue)).code, 0)
        // The three agents die together (killed in one go), so one probe round finds them.
        const panes = s.tmux("list-panes", "-a", "-F", "#{session_name} #{pane_pid}").trim().split("\n").map((line) => line.split(" "))
        for (const [name, pid] of panes) if (name !== "app-orchestrator") process.kill(Number(pid), "SIGKILL")
        yield* eventually("three session.exited", () => s.events().filter((e) => e.type === "session.exited").length === 3, 40_000)
        const told = () => s.events().filter((e) => e.type === "notification.sent" && e.data?.type === "reaction.agent-exited")
        yield* eventually("the group's notification", () => told().some((e) => e.data?.grouped === 2), 20_000)
        const inbox = JSON.parse((yield* orch("notifications", "--json")).stdout) as Array<{ type: string; title: string; message: string }>
        const exits = inbox.filter((n) => n.type === "reaction.agent-exited")
        assert.strictEqual(exits.length, 2, JSON.stringify(inbox))
        assert.include(exits.map((n) => n.title).join("\n"), "2 more: agent exited")
        const rows = JSON.parse((yield* orch("status", "--json")).stdout) as Array<{ sessionId: string; status: string; role?: string }>
        assert.deepStrictEqual(rows.filter((r) => r.role === undefined).map((r) => [r.sessionId, r.status]), [["app-1", "errored"], ["app-2", "errored"], [
          "app-3",
          "errored"
        ]])
      }),
    90_000
  )

  it.live("webhooks: the signature first (401 whatever the body), then the body; the API's failures are code and sentence", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const emulator = yield* emulatorFor(s)
      s.writeRepoConfig({ scm: { plugin: "repohost", apiUrl: emulator.url, webhookSecret: "${HOOK_SECRET}" } })
      const started = yield* s.orch(["start", "--detach", "--no-open"], { cwd: s.repo.path, env: { HOOK_SECRET: "hook-s3cret" } })
      assert.strictEqual(started.code, 0, started.stderr)
      const base = `http://127.0.0.1:${s.ports.port}`
      const call = (path: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}${path}`, init)
          return { status: response.status, json: await response.json().catch(() => undefined) as unknown }
        })
      const { createHmac } = yield* Effect.promise(() => import("node:crypto"))
      const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
      const deliver = (body: string, signature: string | undefined, delivery: string) =>
        call("/webhooks/repohost", {
          method: "POST",
          body,
          headers: {
            "content-type": "application/json",
            "x-github-event": "pull_request",
            "x-github-delivery": delivery,
            ...(signature !== undefined ? { "x-hub-signature-256": signature } : {})
          }
        })
      const good = JSON.stringify({ repository: { full_name: "acme/app" }, pull_request: { head: { ref: "feat/1" } } })
      for (
        const [body, signature] of [[good, sign("wrong", good)], [good, undefined], ["{not json", sign("wrong", "{not json")], [
          "{not json",
          undefined
        ]] as const
      ) {
        const answer = yield* deliver(body, signature, "d0")
        assert.strictEqual(answer.status, 401, `${body} ${signature}`)
        assert.strictEqual((answer.json as { error: string }).error, "bad_signature")
        assert.match((answer.json as { message: string }).message, /x-hub-signature-256/)
      }
      assert.deepStrictEqual(yield* deliver("{not json", sign("hook-s3cret", "{not json"), "d1"), {
        status: 400,
        json: { error: "bad_body", message: "the body is not a JSON delivery orch can read" }
      })
      assert.deepStrictEqual(yield* deliver(good, sign("hook-s3cret", good), "d2"), { status: 202, json: { accepted: "acme/app feat/1" } })

      const token = readFileSync(join(s.dataDir, "token"), "utf8").trim()
      const bearer = { headers: { authorization: `Bearer ${token}` } }
      assert.deepStrictEqual(yield* call("/api/sessions/nope", bearer), { status: 404, json: { error: "session_not_found", message: "no session nope" } })
      assert.deepStrictEqual(yield* call("/api/sessions/nope/events", bearer), {
        status: 404,
        json: { error: "session_not_found", message: "no session nope" }
      }, "a session orch never had has no timeline either")
      assert.deepStrictEqual(yield* call("/api/sessions/nope"), {
        status: 401,
        json: { error: "unauthorized", message: "this needs the orch dashboard token: open the URL `orch start` printed" }
      })
      assert.deepStrictEqual(yield* call("/api/nope", bearer), {
        status: 404,
        json: { error: "not_found", message: "there is no GET /api/nope in the API; docs/dashboard.md lists its calls" }
      })
      assert.strictEqual((yield* inRepo(s)("stop")).code, 0)
    }), 90_000)

  it.live(
    "a PR poll whose repohost answers 404 to GraphQL: one line each time it is told, fewer as it lasts, no stack; a line when it works again",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        const emulator = yield* emulatorFor(s)
        emulator.failNext(100_000, 404, "graphql")
        const file = s.writeRepoConfig({ scm: { plugin: "repohost", apiUrl: emulator.url } })
        writeFileSync(file, `pollIntervalMs: 1000\n${readFileSync(file, "utf8")}`)
        const orch = inRepo(s)
        assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
        assert.strictEqual((yield* orch("spawn", "app", "--task", "Say hello")).code, 0)
        const failures = () => s.events().filter((e) => e.type === "supervisor.error" && e.data.loop === "PR poll")
        // Failures at about 0, 1, 3 and 7 s (backed off); the log is told of the 1st, 2nd and 4th.
        yield* eventually("four failed PR polls", () => failures().length >= 4, 30_000)
        const log = join(s.dataDir, "supervisor.log")
        const pollLines = () => readFileSync(log, "utf8").split("\n").filter((line) => line.includes(" the PR poll "))
        const told = pollLines()
        assert.lengthOf(told, 3, told.join("\n"))
        assert.match(told[0]!, /^\S+ ERROR the PR poll failed: app: .*404.*; orch tries again in 1 s$/)
        assert.match(told[1]!, /^\S+ ERROR the PR poll still fails \(2 in a row\): app: .*404.*; orch tries again in 2 s$/)
        assert.match(told[2]!, /^\S+ ERROR the PR poll still fails \(4 in a row\): app: .*404.*; orch tries again in 8 s$/)
        assert.notMatch(readFileSync(log, "utf8"), /^\s+at /m, "no stack trace for a host that answers 404")

        emulator.failNext(0, 404)
        yield* eventually(
          "the poll to work again",
          () => pollLines().some((line) => / INFO the PR poll works again, after \d+ failures in a row$/.test(line)),
          30_000
        )
        assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
      }),
    90_000
  )

  it.live("Ctrl-C during orch spawn says the spawn was stopped and undone: with no supervisor, and through one", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig({ postCreate: [BLOCKING_POST_CREATE] })
      const worktrees = join(s.dataDir, "worktrees", "app")

      const here = yield* foreground(["spawn", "app", "1"], { cwd: s.repo.path, env: s.env })
      yield* killAtEnd(yield* eventually("app-1's postCreate to run", () => blockedPostCreate(s.dataDir, "app", "app-1"), 30_000))
      here.signal("SIGINT")
      assert.deepStrictEqual(yield* here.exited, { code: 130, signal: null }, here.stderr())
      assert.strictEqual(here.stdout(), "")
      assert.strictEqual(here.stderr(), "orch: interrupted: the spawn of issue 1 in app was stopped and what it had made undone; no session was started\n")
      assert.isFalse(existsSync(join(worktrees, "app-1")), "its worktree is gone")
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")), "its record is gone")

      assert.strictEqual((yield* inRepo(s)("start", "--detach", "--no-open")).code, 0)
      const before = s.events().length
      const through = yield* foreground(["spawn", "app", "2"], { cwd: s.repo.path, env: s.env })
      const marker = yield* eventually("the spawn's postCreate to run", () => readdirSync(worktrees).find((name) => name.startsWith("started-")), 30_000)
      const sessionId = marker.slice("started-".length)
      yield* killAtEnd(yield* eventually("its pid", () => blockedPostCreate(s.dataDir, "app", sessionId)))
      through.signal("SIGINT")
      assert.deepStrictEqual(yield* through.exited, { code: 130, signal: null }, through.stderr())
      assert.strictEqual(through.stderr(), "orch: interrupted: the spawn of issue 2 in app was stopped and what it had made undone; no session was started\n")
      assert.isTrue(s.events().slice(before).some((e) => e.type === "session.spawn_failed" && e.issueId === "2"), "the supervisor undid it")
      assert.isFalse(existsSync(join(worktrees, sessionId)), "its worktree is gone")
      const supervisor = Number(JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")).pid)
      assert.isTrue(running(supervisor), "the supervisor runs on")
      assert.strictEqual((yield* inRepo(s)("stop")).code, 0)
    }), 120_000)
  it.live("a spawn while the config file on disk has an error the supervisor did not apply says so: fast path and full CLI", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const orch = inRepo(s)
      assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
      s.writeRepoConfig({ agent: "comand" })
      // The receipt: the supervisor's word on its file, as `orch status` reads it.
      const statePath = join(s.dataDir, "config-state.json")
      // (It may first read the file half-written, as an editor's save can leave it: the receipt is the edit's own error.)
      yield* eventually("the supervisor to reject the edit", () => {
        const state = existsSync(statePath) ? readFileSync(statePath, "utf8") : ""
        return state.includes("\"rejected\"") && state.includes("comand")
      })
      const note = /^orch: warning: config: \S+orchestrator\.yaml has an error since \d\d:\d\d UTC and was not applied: [^\n]*comand[^\n]*\n$/
      const fast = yield* orch("spawn", "app", "7")
      assert.strictEqual(fast.code, 0, fast.stderr)
      assert.match(fast.stderr, note)
      const full = yield* orch("spawn", "app", "--task", "x")
      assert.strictEqual(full.code, 0, full.stderr)
      assert.match(full.stderr, note)
      const status = yield* orch("status")
      assert.include(status.stdout, fast.stderr.slice("orch: warning: ".length), "the same note orch status prints")
      assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
    }), 60_000)
  it.live("run from above home, the config under home is named ~/…, never a ./ path climbing into home", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      assert.strictEqual((yield* inRepo(s)("start", "--detach", "--no-open")).code, 0)
      mkdirSync(dirname(s.userConfigFile), { recursive: true })
      writeFileSync(s.userConfigFile, stringify({ ...s.ports, projects: {} }))
      // The sandbox's root holds home: from there, the search finds the user config. (`orch start` joining the
      // running supervisor says whose config it acts under; `status` and `queue ls` read files, and act under none.)
      const listed = yield* s.orch(["start", "--detach", "--no-open"], { cwd: s.root })
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.strictEqual(
        listed.stderr,
        `orch: using the running supervisor's config ${join(s.repo.path, "orchestrator.yaml")}, not ~/.config/orchestrator/config.yaml\n`
      )
      assert.strictEqual((yield* inRepo(s)("stop")).code, 0)
    }), 60_000)

  it.live("a misspelt top-level key as close to two keys names both (prots: port or projects)", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      writeFileSync(join(s.repo.path, "orchestrator.yaml"), stringify({ prots: 3000, projects: { app: s.project() } }))
      const run = yield* inRepo(s)("config", "validate")
      assert.strictEqual(run.code, 2, run.stdout)
      assert.include(run.stderr, `Unknown key "prots" (did you mean "port" or "projects"?)`)
    }), 30_000)
})
