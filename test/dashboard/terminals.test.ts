/**
 * The terminal sockets against a real supervisor: each tmux viewer is its own `tmux attach` client at its own
 * size, read-only viewers cannot type or resize, sockets need the token and the dashboard's origin; a
 * `process`-runtime pty is shared by its viewers, on the same port (and on the deprecated `directTerminalPort`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import WebSocket from "ws"
import { eventually, processGone } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { dashboardClient } from "./client.ts"

/** Terminal output as text: cursor-forward moves become spaces, other escape sequences go. */
const plain = (raw: string) =>
  raw.replace(/\x1b\[(\d*)C/g, (_, n: string) => " ".repeat(Number(n || 1))).replace(
    /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78M]|\x1b\][^\x07]*\x07/g,
    ""
  )

interface Viewer {
  readonly socket: WebSocket
  readonly output: () => string
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>
  readonly type: (data: string) => void
  readonly resize: (cols: number, rows: number) => void
}

/** Opens a terminal socket; resolves to the viewer, or to the HTTP status the upgrade was refused with. */
const open = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.callback<Viewer | { readonly refused: number }>((resume) => {
      const socket = new WebSocket(url, { headers })
      let output = ""
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
      )
      socket.on("message", (data) => {
        output += data.toString()
      })
      socket.on("open", () =>
        resume(Effect.succeed({
          socket,
          closed,
          output: () => plain(output),
          type: (data: string) => socket.send(JSON.stringify({ type: "input", data })),
          resize: (cols: number, rows: number) => socket.send(JSON.stringify({ type: "resize", cols, rows }))
        })))
      socket.on("unexpected-response", (_, response) => resume(Effect.succeed({ refused: response.statusCode ?? 0 })))
      socket.on("error", () => {})
    }),
    (viewer) => Effect.sync(() => ("socket" in viewer ? viewer.socket.terminate() : undefined))
  )

const viewer = (result: Viewer | { readonly refused: number }): Viewer => {
  if ("refused" in result) throw new Error(`the socket was refused with ${result.refused}`)
  return result
}

describe("terminal sockets (a real supervisor)", () => {
  it.live("tmux viewers: token and origin checked; each its own client and size; typing reaches the pane; read-only cannot type", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      yield* eventually("the agent", () => s.screen("app-1").includes("ready app-1"))
      const { token } = dashboardClient(s)
      const url = (query: string) => `ws://127.0.0.1:${s.terminalPort}/terminal/app-1?${query}`
      const dashboard = `http://127.0.0.1:${s.port}`

      assert.deepStrictEqual(yield* open(url("cols=80&rows=24"), {}), { refused: 401 })
      assert.deepStrictEqual(yield* open(url("cols=80&rows=24"), { authorization: "Bearer nope" }), { refused: 401 })
      assert.deepStrictEqual(yield* open(url("cols=80&rows=24"), { cookie: `orch_token=${token}`, origin: "http://evil.example" }), { refused: 403 })
      assert.deepStrictEqual(yield* open(url("cols=80&rows=24"), { cookie: `orch_token=${token}`, origin: `http://127.0.0.1:${s.port + 1}` }), { refused: 403 })
      assert.deepStrictEqual(yield* open(`ws://127.0.0.1:${s.directTerminalPort}/terminal/app-1`, {}), { refused: 401 })

      const nobody = viewer(
        yield* open(`ws://127.0.0.1:${s.terminalPort}/terminal/${encodeURIComponent("é".repeat(200))}`, { authorization: `Bearer ${token}` })
      )
      const refusal = yield* Effect.promise(() => nobody.closed)
      assert.strictEqual(refusal.code, 4404)
      assert.match(refusal.reason, /^no session éé/, "a reason too long for a close frame is cut, not thrown")

      // Two people at once: a laptop and a phone, each drawn at its own size by its own tmux client.
      const laptop = viewer(yield* open(url("cols=120&rows=40"), { cookie: `orch_token=${token}`, origin: dashboard }))
      const phone = viewer(yield* open(url("cols=50&rows=20"), { authorization: `Bearer ${token}` }))
      yield* eventually("the laptop's screen", () => laptop.output().includes("ready app-1"))
      yield* eventually("the phone's screen", () => phone.output().includes("ready app-1"))
      const clients = () =>
        execFileSync("tmux", ["-S", s.socket, "list-clients", "-t", "=app-1", "-F", "#{client_width}x#{client_height} #{client_flags}"], { encoding: "utf8" })
          .trim().split("\n").filter(Boolean)
      yield* eventually("two clients at their own sizes", () => {
        const sizes = clients().map((c) => c.split(" ")[0]).sort()
        return sizes.length === 2 && sizes[0] === "120x40" && sizes[1] === "50x20"
      })

      laptop.type("hello from the laptop\r")
      yield* eventually("the line in the tmux pane", () => s.screen("app-1").includes("got: hello from the laptop"))
      yield* eventually(
        "the answer on both screens",
        () => laptop.output().includes("got: hello from the laptop") && phone.output().includes("got: hello from the laptop")
      )
      phone.resize(60, 25)
      yield* eventually("the phone's new size", () => clients().some((c) => c.startsWith("60x25 ")))

      const watcher = viewer(yield* open(url("cols=200&rows=60&mode=read"), { authorization: `Bearer ${token}` }))
      yield* eventually("the read-only client", () => clients().some((c) => c.includes("read-only") && c.includes("ignore-size")))
      watcher.type("typed by a watcher\r")
      watcher.resize(30, 10)
      laptop.type("after the watcher\r")
      yield* eventually("the laptop's later line", () => s.screen("app-1").includes("got: after the watcher"))
      assert.notInclude(s.screen("app-1"), "typed by a watcher", "a read-only viewer cannot type")
      // The window follows whoever typed last (the laptop; its height less tmux's status line); the watcher sees
      // it at its own size but never resizes it.
      const windowSize = () =>
        execFileSync("tmux", ["-S", s.socket, "display-message", "-p", "-t", "=app-1:", "#{window_width}x#{window_height}"], { encoding: "utf8" }).trim()
      yield* eventually("the window at the laptop's width", () => windowSize().startsWith("120x"))
      assert.isTrue(clients().some((c) => c.startsWith("30x10 ") && c.includes("read-only")), "the watcher's own view has its size")
      yield* eventually("the watcher to see it all the same", () => watcher.output().includes("got: after the watcher"))

      laptop.socket.close()
      yield* eventually("the laptop's client to detach", () => clients().length === 2)
      assert.include(s.sessions(), "app-1", "closing a viewer leaves the session running")

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      const ended = yield* Effect.promise(() => phone.closed)
      assert.strictEqual(ended.code, 4410)
      const gone = viewer(yield* open(url("cols=80&rows=24"), { authorization: `Bearer ${token}` }))
      assert.deepStrictEqual(yield* Effect.promise(() => gone.closed), { code: 4404, reason: "app-1 is not running (killed)" })
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live("a process-runtime pty is shared: what it printed so far, then live; read-only viewers only watch", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { runtime: "process" } })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const { token } = dashboardClient(s)
      const auth = { authorization: `Bearer ${token}` }
      const url = (query: string) => `ws://127.0.0.1:${s.terminalPort}/terminal/app-1?${query}`

      const first = viewer(yield* open(url("cols=100&rows=30"), auth))
      yield* eventually("the output so far", () => first.output().includes("ready app-1"))
      const second = viewer(yield* open(url("cols=40&rows=10&mode=read"), auth))
      yield* eventually("the replay for a later viewer", () => second.output().includes("ready app-1"))
      second.type("from the watcher\r")
      first.type("hi there\r")
      yield* eventually("the answer on both", () => first.output().includes("got: hi there") && second.output().includes("got: hi there"))
      assert.notInclude(first.output(), "from the watcher")

      const direct = viewer(yield* open(`ws://127.0.0.1:${s.directTerminalPort}/terminal/app-1?cols=80&rows=24&mode=read`, auth))
      yield* eventually("the same terminal on the deprecated port", () => direct.output().includes("got: hi there"))

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      assert.deepStrictEqual(yield* Effect.promise(() => first.closed), { code: 4410, reason: "the agent's process ended" })
      const { pid } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      // The orchestrator's pty ends with the supervisor, and so does the supervisor's process.
      yield* eventually("the supervisor's process to end", () => processGone(pid))
    }), 60_000)
})
