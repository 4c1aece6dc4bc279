/**
 * `attach` of a runtime plugin module: its node-pty-like terminal (contract/runtime.ts) seen as a `Terminal`.
 * What its methods throw is logged and told to the viewer where it matters (the attach itself); the terminal
 * is closed when the viewer leaves.
 */
import * as Effect from "effect/Effect"
import { type AttachOptions, type Terminal, type TerminalSize, TerminalUnavailable } from "../../domain/terminal.ts"
import { decodeWith } from "../contract/common.ts"
import { type RuntimePluginHandle, type RuntimePluginTerminal, TerminalFromPlugin } from "../contract/runtime.ts"
import { callPlugin } from "../loader.ts"
import { makeOutputPipe } from "./terminal-output.ts"

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

export const attachPluginTerminal = Effect.fnUntraced(function*(
  plugin: string,
  component: Record<string, unknown>,
  handle: RuntimePluginHandle,
  size: TerminalSize,
  options: AttachOptions
) {
  const unavailable = (reason: string) =>
    new TerminalUnavailable({ sessionId: handle.id, reason: `the ${plugin} runtime cannot show this terminal: ${reason}` })
  const answer = yield* Effect.acquireRelease(
    callPlugin(plugin, component, "attach", handle, { cols: size.cols, rows: size.rows }, { readOnly: options.readOnly }).pipe(
      Effect.mapError((error) => unavailable(error.reason))
    ),
    (answer) =>
      typeof (answer as { close?: unknown } | null)?.close === "function"
        ? callPlugin(plugin, answer as Record<string, unknown>, "close").pipe(
          Effect.catch((error) => Effect.logWarning(`runtime ${plugin}: closing the terminal of ${handle.id} failed: ${error.reason}`))
        )
        : Effect.void
  )
  yield* Effect.mapError(decodeWith(TerminalFromPlugin)(answer), (problem) => unavailable(`attach returned an unexpected value: ${problem}`))
  const terminal = answer as RuntimePluginTerminal
  /** Runs one of the terminal's methods; what it throws is logged (the viewer goes on). */
  const call = (method: string, run: () => void) =>
    Effect.try({ try: run, catch: describe }).pipe(
      Effect.catch((reason) => Effect.logWarning(`runtime ${plugin}: the terminal of ${handle.id} failed in ${method}: ${reason}`))
    )
  const pipe = yield* makeOutputPipe(
    handle.id,
    terminal.pause !== undefined && terminal.resume !== undefined
      ? { _tag: "Pause", pause: () => terminal.pause!(), resume: () => terminal.resume!() }
      : { _tag: "Drop" }
  )
  const listen = (method: "onData" | "onExit", subscribe: () => unknown) =>
    Effect.acquireRelease(
      Effect.try({ try: subscribe, catch: (cause) => unavailable(`${method} failed: ${describe(cause)}`) }),
      (stop) => (typeof stop === "function" ? call(`the function ${method} returned`, () => stop()) : Effect.void)
    )
  yield* listen("onData", () => terminal.onData((data) => pipe.push(String(data))))
  yield* listen("onExit", () => terminal.onExit((how) => pipe.end(typeof how === "string" && how.trim() !== "" ? how.trim() : "the terminal ended")))
  return {
    output: pipe.output,
    write: (data) => (options.readOnly ? Effect.void : call("write", () => terminal.write(data))),
    resize: (cols, rows) => (options.readOnly ? Effect.void : call("resize", () => terminal.resize(cols, rows))),
    ended: pipe.ended
  } satisfies Terminal
})
