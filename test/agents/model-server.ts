/**
 * A scripted model server speaking Anthropic's Messages API (`POST /v1/messages`, streamed as Server-Sent Events),
 * for running the real Claude Code CLI offline. A scenario is a list of turns: a turn starts at the user message
 * its `when` matches and answers with its steps in order, one per model call (text, tool calls, an error, or a
 * step held until the test releases it). Everything else (titles, summaries, unmatched messages) gets a short
 * text. Every request is recorded, so a test sees exactly what reached the model.
 *
 * It is stateless about conversations: the step to answer is the number of assistant messages after the
 * matched user message, so a resumed conversation, a retried request or several sessions at once all work.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { makeAnswerWriter, type ToolCall } from "../../src/plugins/agent/anthropic-sse.ts"

export type { ToolCall }

/** An API error as Anthropic's API sends it: the HTTP status, the error's type and message, and the headers that come with it. */
export interface ApiError {
  readonly status: number
  readonly type: string
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

export type Step =
  | { readonly text: string; readonly hold?: Promise<unknown> }
  | { readonly tools: ReadonlyArray<ToolCall>; readonly text?: string; readonly hold?: Promise<unknown> }
  /** An API error the agent shows. */
  | { readonly error: ApiError; readonly hold?: Promise<unknown> }

export interface Turn {
  /** The user message that starts this turn: a substring of its text, or a pattern. */
  readonly when: string | RegExp
  readonly steps: ReadonlyArray<Step>
}

export interface ModelRequest {
  readonly at: number
  /** From "Primary working directory: <cwd>" in the system prompt: which agent asked. */
  readonly cwd: string | undefined
  readonly system: string
  /** The text of every user message (tool results left out), in order. */
  readonly userTexts: ReadonlyArray<string>
  /** Whether it is a conversation call (it offers tools), not a side call (title, summary). */
  readonly main: boolean
  /** The tool results in the last message, as text. */
  readonly toolResults: ReadonlyArray<string>
  readonly body: Record<string, unknown>
}

export interface ModelServer {
  readonly url: string
  readonly requests: Array<ModelRequest>
  /** Conversation calls only (they offer tools), optionally only one agent's (by its working directory). */
  readonly mainRequests: (cwd?: string) => Array<ModelRequest>
  /** Replaces the scenario (turns are matched in order; the first whose `when` fits wins). */
  readonly script: (turns: ReadonlyArray<Turn>) => void
  /**
   * Refuses conversation calls with `error` (an outage: a rate limit for everyone, whatever the scenario says): the
   * next `times` calls (every one when left out), and only until `until` (ms) when given.
   */
  readonly refuse: (error: ApiError, options?: { readonly times?: number; readonly until?: number }) => void
  /** When each refused conversation call came (ms). */
  readonly refused: Array<number>
  readonly close: () => Promise<void>
}

export const DEFAULT_TEXT = "OK."

const RATE_LIMIT_MESSAGE = "This request would exceed your account's rate limit. Please try again later."

/**
 * A 429 as Anthropic's API answers a rate limit (an API key's per-minute limit): `rate_limit_error`, `retry-after` in
 * seconds and the `anthropic-ratelimit-*` headers saying which limit ran out and when it refills.
 */
export const rateLimited = (retryAfterSeconds: number, now = Date.now()): ApiError => {
  const reset = new Date(now + retryAfterSeconds * 1000).toISOString()
  return {
    status: 429,
    type: "rate_limit_error",
    message: RATE_LIMIT_MESSAGE,
    headers: {
      "retry-after": String(retryAfterSeconds),
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": reset,
      "anthropic-ratelimit-input-tokens-limit": "30000",
      "anthropic-ratelimit-input-tokens-remaining": "30000",
      "anthropic-ratelimit-input-tokens-reset": new Date(now).toISOString(),
      "anthropic-ratelimit-output-tokens-limit": "8000",
      "anthropic-ratelimit-output-tokens-remaining": "8000",
      "anthropic-ratelimit-output-tokens-reset": new Date(now).toISOString()
    }
  }
}

/** A 529 as Anthropic's API answers when it is overloaded, with a `retry-after` when given. */
export const overloaded = (retryAfterSeconds?: number): ApiError => ({
  status: 529,
  type: "overloaded_error",
  message: "Overloaded",
  ...(retryAfterSeconds !== undefined ? { headers: { "retry-after": String(retryAfterSeconds) } } : {})
})

/** A 500 as Anthropic's API answers an internal error. */
export const serverError = (): ApiError => ({ status: 500, type: "api_error", message: "Internal server error" })

/** Writes an API error as Anthropic's API does: its headers, a `request-id`, and the JSON error body. */
const writeError = (res: ServerResponse, error: ApiError) => {
  res.writeHead(error.status, { "content-type": "application/json", "request-id": `req_${randomUUID().replaceAll("-", "")}`, ...error.headers })
  res.end(JSON.stringify({ type: "error", error: { type: error.type, message: error.message } }))
}

interface Block {
  readonly type: string
  readonly text?: string
  readonly content?: unknown
}
interface Message {
  readonly role: "user" | "assistant" | "system"
  readonly content: string | ReadonlyArray<Block>
}

const blocks = (message: Message): ReadonlyArray<Block> => typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content

/** The text a person typed in a user message; "" for messages that only carry tool results. */
export const userText = (message: Message): string =>
  message.role !== "user"
    ? ""
    : blocks(message).filter((b) => b.type === "text" && !(b.text ?? "").startsWith("<system-reminder>")).map((b) => b.text ?? "").join("\n")

const resultText = (block: Block): string =>
  typeof block.content === "string"
    ? block.content
    : Array.isArray(block.content)
    ? (block.content as ReadonlyArray<Block>).map((b) => b.text ?? "").join("\n")
    : ""

const matches = (when: string | RegExp, text: string) => (typeof when === "string" ? text.includes(when) : when.test(text))

/** Which step of which turn answers this conversation, or undefined for the default text. */
export const nextStep = (turns: ReadonlyArray<Turn>, messages: ReadonlyArray<Message>): Step | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = userText(messages[i]!)
    if (text.trim() === "") continue
    const turn = turns.find((t) => matches(t.when, text))
    if (turn === undefined) return undefined
    const answered = messages.slice(i + 1).filter((m) => m.role === "assistant").length
    return turn.steps[answered]
  }
  return undefined
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const systemText = (system: unknown): string =>
  typeof system === "string" ? system : Array.isArray(system) ? (system as ReadonlyArray<Block>).map((b) => b.text ?? "").join("\n") : ""

export const startModelServer = (turns: ReadonlyArray<Turn> = []): Promise<ModelServer> => {
  let scenario = turns
  let outage: { readonly until: number; times: number; readonly error: ApiError } | undefined
  const refused: Array<number> = []
  const requests: Array<ModelRequest> = []
  const { jsonAnswer, streamAnswer } = makeAnswerWriter()
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const raw = await readBody(req)
    if (req.method !== "POST" || url.pathname !== "/v1/messages") {
      if (url.pathname === "/v1/messages/count_tokens") {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }))
      }
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `${req.method} ${url.pathname}` } }))
    }
    const body = JSON.parse(raw) as Record<string, unknown>
    const messages = (body.messages ?? []) as ReadonlyArray<Message>
    const system = systemText(body.system)
    const last = messages.at(-1)
    const main = Array.isArray(body.tools) && body.tools.length > 0
    const down = main && outage !== undefined && outage.times > 0 && Date.now() < outage.until ? outage : undefined
    if (down !== undefined) {
      down.times--
      refused.push(Date.now())
      return writeError(res, down.error)
    }
    requests.push({
      at: Date.now(),
      // Claude Code 2.x sends its environment block as a "system" message rather than in `system`.
      cwd: /Primary working directory: (\S+)/.exec(
        [system, ...messages.filter((m) => m.role === "system").flatMap((m) => blocks(m).map((b) => b.text ?? ""))].join("\n")
      )?.[1],
      system,
      userTexts: messages.map(userText).filter((t) => t.trim() !== ""),
      main,
      toolResults: last === undefined ? [] : blocks(last).filter((b) => b.type === "tool_result").map(resultText),
      body
    })
    const model = typeof body.model === "string" ? body.model : "scripted"
    const step = main ? nextStep(scenario, messages) : undefined
    if (step?.hold !== undefined) await step.hold
    if (step !== undefined && "error" in step) return writeError(res, step.error)
    if (body.stream !== true) return jsonAnswer(res, model, step !== undefined && "text" in step && step.text !== undefined ? step.text : DEFAULT_TEXT)
    return streamAnswer(res, model, step ?? { text: DEFAULT_TEXT })
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }))
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        mainRequests: (cwd) => requests.filter((r) => r.main && (cwd === undefined || r.cwd === cwd)),
        script: (next) => {
          scenario = next
        },
        refuse: (error, options = {}) => {
          outage = { error, times: options.times ?? Infinity, until: options.until ?? Infinity }
        },
        refused,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
