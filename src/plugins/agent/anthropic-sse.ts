/**
 * One assistant answer in Anthropic's streaming Messages API (Server-Sent Events): text and tool calls. Used by
 * `orch doctor`'s agent canary (a model that drives Claude Code to known screens) and the tests' scripted model.
 */
import type { ServerResponse } from "node:http"

export interface ToolCall {
  /** The agent's tool name: `Bash`, `Write`, `Edit`, … */
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
}

export interface Answer {
  readonly text?: string
  readonly tools?: ReadonlyArray<ToolCall>
}

const event = (res: ServerResponse, type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)

export interface AnswerWriter {
  readonly streamAnswer: (res: ServerResponse, model: string, answer: Answer) => void
  /** The same answer, for a request that did not ask to stream. */
  readonly jsonAnswer: (res: ServerResponse, model: string, text: string) => void
}

/** The answers of one model server: its message, request and tool-call ids are numbered in order. */
export const makeAnswerWriter = (): AnswerWriter => {
  let ids = 0
  const nextId = (prefix: string) => `${prefix}_${(++ids).toString().padStart(6, "0")}${Date.now().toString(36)}`
  return {
    streamAnswer: (res, model, answer) => streamAnswer(res, model, answer, nextId),
    jsonAnswer: (res, model, text) => jsonAnswer(res, model, text, nextId)
  }
}

const streamAnswer = (res: ServerResponse, model: string, answer: Answer, nextId: (prefix: string) => string) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "request-id": nextId("req") })
  event(res, "message_start", {
    message: {
      id: nextId("msg"),
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 }
    }
  })
  let index = 0
  if (answer.text !== undefined && answer.text !== "") {
    event(res, "content_block_start", { index, content_block: { type: "text", text: "" } })
    event(res, "content_block_delta", { index, delta: { type: "text_delta", text: answer.text } })
    event(res, "content_block_stop", { index })
    index++
  }
  for (const call of answer.tools ?? []) {
    event(res, "content_block_start", { index, content_block: { type: "tool_use", id: nextId("toolu"), name: call.tool, input: {} } })
    event(res, "content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } })
    event(res, "content_block_stop", { index })
    index++
  }
  event(res, "message_delta", {
    delta: { stop_reason: (answer.tools ?? []).length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 12 }
  })
  event(res, "message_stop", {})
  res.end()
}

const jsonAnswer = (res: ServerResponse, model: string, text: string, nextId: (prefix: string) => string) => {
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify({
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 }
  }))
}
