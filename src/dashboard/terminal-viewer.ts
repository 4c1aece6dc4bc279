/**
 * One viewer on a terminal socket: the session's terminal, attached through its runtime (`Attach`, given by
 * whoever runs the dashboard), for as long as the socket is open. The client sends JSON
 * (`{"type":"input","data":…}`, `{"type":"resize","cols":…,"rows":…}`); the server sends the terminal's output as
 * text, no faster than the socket takes it. Close codes: 4404 no terminal to show, 4410 it ended, 4408 the viewer
 * fell too far behind a terminal that cannot wait for it (it reconnects).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { RawData, WebSocket } from "ws"
import { isLive } from "../domain/live.ts"
import type { SessionRecord } from "../domain/session.ts"
import type { Attach, Terminal, TerminalUnavailable } from "../domain/terminal.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"

export const CLOSE_NO_TERMINAL = 4404
export const CLOSE_ENDED = 4410
export const CLOSE_TOO_SLOW = 4408
const CLOSE_FAILED = 1011
/** Output sent to a socket but not yet written out: past this, the viewer's terminal waits (below half, it goes on). */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024

/** The runtime `attach` of a session's project, or why the session has no terminal to show. */
export type TerminalOf = (record: SessionRecord) => Effect.Effect<Attach, TerminalUnavailable>

export interface Viewer {
  readonly sessionId: string
  readonly cols: number
  readonly rows: number
  readonly readOnly: boolean
}

const clamp = (value: string | null, fallback: number, max: number) => {
  const n = Number(value)
  return Number.isInteger(n) && n >= 2 ? Math.min(n, max) : fallback
}

/** The viewer a socket URL asks for; undefined for any other path. */
export const parseViewer = (url: string): Viewer | undefined => {
  const parsed = new URL(url, "http://x")
  const match = /^\/terminal\/([^/]+)$/.exec(parsed.pathname)
  if (match === null) return undefined
  return {
    sessionId: decodeURIComponent(match[1]!),
    cols: clamp(parsed.searchParams.get("cols"), 80, 1000),
    rows: clamp(parsed.searchParams.get("rows"), 24, 500),
    readOnly: parsed.searchParams.get("mode") === "read"
  }
}

type ClientMessage = { readonly type: "input"; readonly data: string } | { readonly type: "resize"; readonly cols: number; readonly rows: number }

/** A client message; undefined for anything else (not JSON, another shape): such messages are ignored. */
const parseMessage = (data: RawData): ClientMessage | undefined => {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(data.toString()) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (value?.type === "input" && typeof value.data === "string") return { type: "input", data: value.data }
  if (value?.type === "resize" && Number.isInteger(value.cols) && Number.isInteger(value.rows) && (value.cols as number) > 1 && (value.rows as number) > 1) {
    return { type: "resize", cols: Math.min(value.cols as number, 1000), rows: Math.min(value.rows as number, 500) }
  }
  return undefined
}

/** Closes with a reason cut to what a close frame holds (123 bytes); closing twice is harmless. */
export const closeSocket = (socket: WebSocket, code: number, reason: string) => {
  let cut = reason
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1)
  socket.close(code, cut)
}

/** Sends a chunk; waits while the socket holds more than its high water of unsent output. */
const socketWriter = (socket: WebSocket) => {
  let pending = 0
  let wake: (() => void) | undefined
  socket.once("close", () => wake?.())
  return (chunk: string) =>
    Effect.callback<void>((resume) => {
      if (socket.readyState !== socket.OPEN) return resume(Effect.void)
      const size = Buffer.byteLength(chunk)
      pending += size
      socket.send(chunk, () => {
        pending -= size
        if (wake !== undefined && pending < SOCKET_HIGH_WATER_BYTES / 2) wake()
      })
      if (pending <= SOCKET_HIGH_WATER_BYTES) return resume(Effect.void)
      wake = () => {
        wake = undefined
        resume(Effect.void)
      }
    })
}

/** What the client sends, from the moment the socket opens, in order. */
const clientMessages = (socket: WebSocket) =>
  Effect.tap(Queue.unbounded<ClientMessage>(), (messages) =>
    Effect.sync(() =>
      socket.on("message", (data) => {
        const message = parseMessage(data)
        if (message !== undefined) Queue.offerUnsafe(messages, message)
      })
    ))

/** Hands input and resizes to the terminal, in the order the client sent them. */
const follow = (messages: Queue.Dequeue<ClientMessage>, terminal: Terminal) =>
  Queue.take(messages).pipe(
    Effect.flatMap((message) => (message.type === "input" ? terminal.write(message.data) : terminal.resize(message.cols, message.rows))),
    Effect.forever
  )

/** The viewer's terminal until it ends, the viewer falls behind, or the socket closes (which interrupts this). */
const show = (socket: WebSocket, messages: Queue.Dequeue<ClientMessage>, viewer: Viewer, record: SessionRecord, attach: Attach) =>
  Effect.gen(function*() {
    const terminal = yield* attach(record.runtime!, { cols: viewer.cols, rows: viewer.rows }, { readOnly: viewer.readOnly })
    yield* Effect.forkScoped(follow(messages, terminal))
    const write = socketWriter(socket)
    // All of the output, then how it ended; a viewer dropped while it waits on its socket is told at once.
    const how = yield* Effect.raceFirst(
      Effect.andThen(Stream.runForEach(terminal.output, write), terminal.ended),
      Effect.andThen(terminal.ended, Effect.never)
    )
    closeSocket(socket, CLOSE_ENDED, how)
  }).pipe(Effect.scoped)

/** Serves one socket for the session it asks for. */
export const serveViewer = (socket: WebSocket, viewer: Viewer, store: SessionStoreShape, terminalOf: TerminalOf) =>
  Effect.gen(function*() {
    const messages = yield* clientMessages(socket)
    const record = yield* store.read(viewer.sessionId)
    if (!isLive(record) || record.runtime === null) return closeSocket(socket, CLOSE_NO_TERMINAL, `${record.sessionId} is not running (${record.status})`)
    yield* show(socket, messages, viewer, record, yield* terminalOf(record))
  }).pipe(
    Effect.catchTags({
      SessionNotFound: (error) => Effect.sync(() => closeSocket(socket, CLOSE_NO_TERMINAL, error.message)),
      TerminalUnavailable: (error) => Effect.sync(() => closeSocket(socket, CLOSE_NO_TERMINAL, error.message)),
      TerminalBehind: () => Effect.sync(() => closeSocket(socket, CLOSE_TOO_SLOW, "fell behind the terminal's output"))
    }),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logError(`terminal socket of ${viewer.sessionId} failed`, cause).pipe(
        Effect.andThen(Effect.sync(() => closeSocket(socket, CLOSE_FAILED, "the terminal failed; see the supervisor's log")))
      )
    )
  )
