/** Talking to a sandbox supervisor's dashboard as a script would: its token, JSON calls, the live stream. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { LiveMessage } from "../../src/dashboard/api.ts"

export const dashboardClient = (s: { readonly dataDir: string; readonly port: number }) => {
  const token = readFileSync(join(s.dataDir, "token"), "utf8").trim()
  const base = `http://127.0.0.1:${s.port}`
  const auth = { authorization: `Bearer ${token}` }
  const request = (method: string, path: string, options: { readonly headers?: Record<string, string>; readonly body?: unknown } = {}) =>
    Effect.promise(async () => {
      const response = await fetch(base + path, {
        method,
        redirect: "manual",
        headers: { ...options.headers, ...(options.body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(options.body !== undefined ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {})
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json: json as any }
    })
  return {
    token,
    base,
    auth,
    request,
    get: (path: string) => request("GET", path, { headers: auth }),
    post: (path: string, body: unknown = {}, headers: Record<string, string> = {}) => request("POST", path, { headers: { ...auth, ...headers }, body })
  }
}

const decodeMessage = Schema.decodeUnknownSync(LiveMessage)

/** The live stream, read frame by frame; every message is checked against the LiveMessage Schema. */
export const liveStream = (base: string, token: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })
      return { response, controller, reader: response.body!.getReader() }
    }),
    ({ controller }) => Effect.sync(() => controller.abort())
  ).pipe(Effect.map(({ response, reader }) => {
    const decoder = new TextDecoder()
    let buffer = ""
    const frames: Array<{ readonly event: string; readonly message: LiveMessage }> = []
    // A read that outlived a timeout is kept for the next call, so no chunk is lost.
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
    /** The next message that satisfies `wanted` (earlier ones are skipped). */
    const next = <A extends LiveMessage>(what: string, wanted: (message: LiveMessage) => message is A, ms = 15_000) =>
      Effect.promise(async () => {
        const deadline = Date.now() + ms
        for (;;) {
          while (frames.length > 0) {
            const frame = frames.shift()!
            if (frame.event !== frame.message.kind) throw new Error(`SSE event ${frame.event} carries a ${frame.message.kind}`)
            if (wanted(frame.message)) return frame.message
          }
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} on the live stream`)
          pending ??= reader.read()
          const chunk = await Promise.race([pending, new Promise<undefined>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())))])
          if (chunk === undefined) continue
          pending = undefined
          if (chunk.done) throw new Error("the live stream ended")
          take(chunk.value)
        }
      })
    const take = (bytes: Uint8Array) => {
      buffer += decoder.decode(bytes, { stream: true })
      let end: number
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.+)$/m.exec(frame)?.[1]
        const data = /^data: (.+)$/m.exec(frame)?.[1]
        if (event !== undefined && data !== undefined) frames.push({ event, message: decodeMessage(JSON.parse(data)) })
      }
    }
    /**
     * Reads to the stream's end: the kinds of the messages still to come, when it ended, and how: "ended" when the
     * server ended it whole (nothing left half-sent), else what went wrong (a connection cut under it).
     */
    const toEnd = Effect.promise(async () => {
      let how: string
      try {
        for (;;) {
          const chunk = await (pending ?? reader.read())
          pending = undefined
          if (chunk.done) {
            how = buffer === "" ? "ended" : `ended with a frame half-sent: ${JSON.stringify(buffer)}`
            break
          }
          take(chunk.value)
        }
      } catch (error) {
        how = `cut: ${String((error as Error).cause ?? error)}`
      }
      return { kinds: frames.splice(0).map((frame) => frame.message.kind), how, at: Date.now() }
    })
    return { response, next, toEnd }
  }))

export const is =
  <K extends LiveMessage["kind"]>(kind: K, check: (message: Extract<LiveMessage, { kind: K }>) => boolean = () => true) =>
  (message: LiveMessage): message is Extract<LiveMessage, { kind: K }> => message.kind === kind && check(message as Extract<LiveMessage, { kind: K }>)
