/**
 * Helpers for the notifier tests: a real local HTTP endpoint that records what it receives (with the test clock's
 * time of arrival), a port nothing listens on, and a Clock that reports every sleep so a test knows when the code
 * under test is waiting before it moves the TestClock. Nothing here sleeps on the real clock.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { REQUEST_TIMEOUT_MS } from "../../../src/plugins/notifier/http-post.ts"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: unknown
  /** The (test) clock's time when the request arrived, in ms. */
  readonly at: number
}

/** The answer to request n (from 1): a status with headers, or never answering. */
export type Reply = { readonly status: number; readonly headers?: Readonly<Record<string, string>> } | "hang"

const listen = (server: Server) =>
  Effect.callback<number>((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
  })

/** A local endpoint answering with `reply(n)`; `next` waits for the next request to arrive. */
export const endpoint = (reply: (n: number) => Reply = () => ({ status: 204 })) =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const arrivals = yield* Queue.unbounded<Received>()
    const requests: Array<Received> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        const received = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: text === "" ? undefined : JSON.parse(text),
          at: clock.currentTimeMillisUnsafe()
        }
        requests.push(received)
        Queue.offerUnsafe(arrivals, received)
        const answer = reply(requests.length)
        if (answer !== "hang") res.writeHead(answer.status, answer.headers).end()
      })
    })
    const port = yield* Effect.acquireRelease(listen(server), () =>
      Effect.sync(() => {
        server.closeAllConnections()
        server.close()
      }))
    return { url: `http://127.0.0.1:${port}`, requests, next: Queue.take(arrivals) }
  })

/** A port on 127.0.0.1 that was just free: connecting to it is refused. */
export const closedPort = Effect.gen(function*() {
  const server = createServer()
  const port = yield* listen(server)
  yield* Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void))
  })
  return port
})

/** A Clock over the current (test) clock that reports each sleep; `run` makes an effect use it. */
export const sleepRecorder = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const started = yield* Queue.unbounded<number>()
  const all: Array<number> = []
  const recording: Clock.Clock = {
    ...clock,
    sleep: (duration) =>
      Effect.suspend(() => {
        const ms = Duration.toMillis(duration)
        all.push(ms)
        Queue.offerUnsafe(started, ms)
        return clock.sleep(duration)
      })
  }
  return {
    /** Every sleep so far, in ms: per-attempt timeouts (10 000) and retry delays. */
    all,
    /** Waits until the code under test starts its next sleep (a timeout or a delay); its length in ms. */
    next: Queue.take(started),
    /** Waits until the code under test starts its next retry delay (skipping per-attempt timeouts); its length in ms. */
    nextDelay: Effect.gen(function*() {
      while (true) {
        const ms = yield* Queue.take(started)
        if (ms !== REQUEST_TIMEOUT_MS) return ms
      }
    }),
    run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Clock.Clock, recording)
  }
})
