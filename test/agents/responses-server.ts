/**
 * A scripted model server speaking OpenAI's Responses API (`POST /v1/responses`, streamed as Server-Sent Events),
 * for running the real Codex CLI offline. Scenarios work like `model-server.ts`: a turn starts at the user
 * message its `when` matches and answers with its steps in order, one per model call (text, shell commands,
 * or a step held until the test releases it); anything else gets a short text. Every request is recorded.
 *
 * Stateless about conversations, like the Anthropic one: the step to answer is the number of assistant
 * outputs (messages or function calls) after the matched user message in the request's `input`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** A command, or one the model asks to run outside the sandbox (`require_escalated`: Codex asks the user first). */
export type Command = string | { readonly cmd: string; readonly justification: string }

export type Step =
  | { readonly text: string; readonly hold?: Promise<unknown> }
  /** Shell commands Codex runs with its `exec_command` tool (one function call each), then an optional text. */
  | { readonly shell: ReadonlyArray<Command>; readonly text?: string; readonly hold?: Promise<unknown> }
  /** An API error (HTTP status and OpenAI's error body), e.g. a 429 `rate_limit_exceeded`. */
  | { readonly error: ApiError; readonly hold?: Promise<unknown> }

/** An API error as OpenAI's API sends it: the HTTP status, the error's code and message, and the headers that come with it. */
export interface ApiError {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * A 429 as OpenAI's API answers a rate limit: `rate_limit_exceeded`, a message saying when to try again, `retry-after`
 * in seconds and the `x-ratelimit-*` headers.
 */
export const rateLimited = (retryAfterSeconds: number): ApiError => ({
  status: 429,
  code: "rate_limit_exceeded",
  message: `Rate limit reached for gpt-test on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in ${retryAfterSeconds}s.`,
  headers: {
    "retry-after": String(retryAfterSeconds),
    "x-ratelimit-limit-requests": "50",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": `${retryAfterSeconds}s`
  }
})

/** A 503 as OpenAI's API answers when it is overloaded. */
export const overloaded = (): ApiError => ({ status: 503, code: "server_is_overloaded", message: "The server is overloaded or not ready yet." })

/** A 500 as OpenAI's API answers an internal error. */
export const serverError = (): ApiError => ({ status: 500, code: "internal_server_error", message: "The server had an error while processing your request." })

const writeError = (res: ServerResponse, error: ApiError) => {
  res.writeHead(error.status, { "content-type": "application/json", ...error.headers })
  res.end(JSON.stringify({ error: { message: error.message, type: "requests", code: error.code } }))
}

export interface Turn {
  readonly when: string | RegExp
  readonly steps: ReadonlyArray<Step>
}

export interface ResponsesRequest {
  readonly at: number
  /** From `<cwd>…</cwd>` in Codex's environment context: which agent asked. */
  readonly cwd: string | undefined
  /** The texts of the developer messages: Codex's own prompt, then `developer_instructions` and its context. */
  readonly developerTexts: ReadonlyArray<string>
  /** The text of every user message, in order (Codex's own context messages included). */
  readonly userTexts: ReadonlyArray<string>
  /** The outputs of the function calls in `input`, in order. */
  readonly toolOutputs: ReadonlyArray<string>
  /** Whether it is a conversation call (it offers tools), not a side call (the title of the thread). */
  readonly main: boolean
  readonly body: Record<string, unknown>
}

export interface ResponsesServer {
  readonly url: string
  readonly requests: Array<ResponsesRequest>
  /** Conversation calls only (they offer tools), optionally only one agent's (by its working directory). */
  readonly mainRequests: (cwd?: string) => Array<ResponsesRequest>
  readonly script: (turns: ReadonlyArray<Turn>) => void
  /** Refuses conversation calls with `error`, whatever the scenario says: the next `times` calls (every one when left out). */
  readonly refuse: (error: ApiError, options?: { readonly times?: number }) => void
  /** When each refused conversation call came (ms). */
  readonly refused: Array<number>
  readonly close: () => Promise<void>
}

export const DEFAULT_TEXT = "OK."

interface InputItem {
  readonly type?: string
  readonly role?: string
  readonly content?: string | ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly output?: unknown
}

const contentTexts = (item: InputItem): ReadonlyArray<string> =>
  typeof item.content === "string" ? [item.content] : (item.content ?? []).map((c) => c.text ?? "")
const itemText = (item: InputItem): string => contentTexts(item).join("\n")

const isUserMessage = (item: InputItem) => (item.type === undefined || item.type === "message") && item.role === "user"
const isAssistantOutput = (item: InputItem) =>
  (item.type === "message" && item.role === "assistant") || item.type === "function_call" || item.type === "local_shell_call" ||
  item.type === "custom_tool_call"

const outputText = (output: unknown): string =>
  typeof output === "string"
    ? output
    : typeof output === "object" && output !== null && "content" in output
    ? String((output as { content: unknown }).content)
    : JSON.stringify(output)

const matches = (when: string | RegExp, text: string) => (typeof when === "string" ? text.includes(when) : when.test(text))

/** Which step of which turn answers this input, or undefined for the default text. */
export const nextStep = (turns: ReadonlyArray<Turn>, input: ReadonlyArray<InputItem>): Step | undefined => {
  for (let i = input.length - 1; i >= 0; i--) {
    if (!isUserMessage(input[i]!)) continue
    const turn = turns.find((t) => matches(t.when, itemText(input[i]!)))
    if (turn === undefined) continue
    return turn.steps[input.slice(i + 1).filter(isAssistantOutput).length]
  }
  return undefined
}

let ids = 0
const nextId = (prefix: string) => `${prefix}_${(++ids).toString().padStart(6, "0")}${Date.now().toString(36)}`

const send = (res: ServerResponse, type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)

/** One answer as the stream Codex reads: each output item added then done, then `response.completed`. */
export const streamResponse = (res: ServerResponse, model: string, step: Step) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const id = nextId("resp")
  const response = { id, object: "response", model, status: "in_progress", output: [] }
  send(res, "response.created", { response })
  const items: Array<Record<string, unknown>> = []
  for (const command of "shell" in step ? step.shell : []) {
    const args = typeof command === "string" ? { cmd: command } : { ...command, sandbox_permissions: "require_escalated" }
    items.push({ type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: "exec_command", arguments: JSON.stringify(args), status: "completed" })
  }
  const text = "shell" in step || "text" in step ? step.text : undefined
  if (text !== undefined && text !== "") {
    items.push({ type: "message", id: nextId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] })
  }
  items.forEach((item, index) => {
    if (item.type === "message") {
      send(res, "response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } })
      send(res, "response.output_text.delta", { output_index: index, content_index: 0, item_id: item.id, delta: text })
    } else {
      send(res, "response.output_item.added", { output_index: index, item })
    }
    send(res, "response.output_item.done", { output_index: index, item })
  })
  send(res, "response.completed", {
    response: {
      ...response,
      status: "completed",
      output: items,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 }
      }
    }
  })
  res.end()
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export const startResponsesServer = (turns: ReadonlyArray<Turn> = []): Promise<ResponsesServer> => {
  let scenario = turns
  let outage: { times: number; readonly error: ApiError } | undefined
  const refused: Array<number> = []
  const requests: Array<ResponsesRequest> = []
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const raw = await readBody(req)
    if (req.method !== "POST" || url.pathname !== "/v1/responses") {
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { type: "not_found", message: `${req.method} ${url.pathname}` } }))
    }
    const body = JSON.parse(raw) as Record<string, unknown>
    const input = (Array.isArray(body.input) ? body.input : []) as ReadonlyArray<InputItem>
    const main = Array.isArray(body.tools) && body.tools.length > 0
    const userTexts = input.filter(isUserMessage).map(itemText)
    if (main && outage !== undefined && outage.times > 0) {
      outage.times--
      refused.push(Date.now())
      return writeError(res, outage.error)
    }
    requests.push({
      at: Date.now(),
      cwd: userTexts.map((t) => /<cwd>(.*?)<\/cwd>/.exec(t)?.[1]).find((cwd) => cwd !== undefined),
      developerTexts: input.filter((i) => i.role === "developer").flatMap(contentTexts),
      userTexts,
      toolOutputs: input.filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output").map((i) => outputText(i.output)),
      main,
      body
    })
    const step = (main ? nextStep(scenario, input) : undefined) ?? { text: DEFAULT_TEXT }
    if (step.hold !== undefined) await step.hold
    if ("error" in step) return writeError(res, step.error)
    return streamResponse(res, typeof body.model === "string" ? body.model : "scripted", step)
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { type: "server_error", message: String(error) } }))
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        mainRequests: (cwd) => requests.filter((r) => r.main && (cwd === undefined || r.cwd === cwd)),
        script: (next) => {
          scenario = next
        },
        refuse: (error, options = {}) => {
          outage = { error, times: options.times ?? Infinity }
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
