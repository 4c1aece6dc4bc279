/**
 * Typing a message into an agent's tmux pane and confirming it was taken, whichever machine the pane is on: the
 * tmux calls are given (local tmux, or tmux on a host through its connection); the waiting and judging are here.
 */
import * as Effect from "effect/Effect"
import type { RuntimeHandle } from "../../domain/session.ts"
import { DeliveryUnconfirmed } from "./Runtime.ts"

const ENTER_ATTEMPTS = 3
const CONFIRM_POLLS = 20
const CONFIRM_POLL_INTERVAL = "50 millis"

/** A screen as tmux shows it: its lines and the line the cursor is on. */
export interface Screen {
  readonly lines: ReadonlyArray<string>
  readonly cursorY: number
}

/** capture-pane's lines followed by display-message's `#{cursor_y}` line, as a Screen. */
export const screenOf = (out: string): Screen => {
  const lines = out.replace(/\n$/, "").split("\n")
  const cursorY = Number(lines.pop())
  return { lines, cursorY }
}

/** Whether the text just pasted is still waiting in the input line: the cursor's line still ends with it. */
const stillPending = (screen: Screen, text: string): boolean => {
  const tail = text.trimEnd().split("\n").at(-1)!.trim().slice(-30)
  return tail !== "" && (screen.lines[screen.cursorY] ?? "").trimEnd().endsWith(tail)
}

/** The input line as drawn: where the cursor is and what its line shows. */
const inputLine = (screen: Screen): string => `${screen.cursorY}:${(screen.lines[screen.cursorY] ?? "").trimEnd()}`

export interface TmuxSendCalls<E> {
  readonly screen: (handle: RuntimeHandle) => Effect.Effect<Screen, E>
  /** Puts `text` in a tmux buffer and pastes it (bracketed) into the pane. */
  readonly paste: (handle: RuntimeHandle, text: string) => Effect.Effect<void, E>
  readonly enter: (handle: RuntimeHandle) => Effect.Effect<void, E>
}

/**
 * Pastes, waits for the agent to draw the paste, presses Enter, and confirms the input line changed. The paste
 * is judged by the input line, not by finding the text: agents may show a long paste as a placeholder
 * (Claude Code: "[Pasted text #1 +3 lines]"). An input line that still shows the paste after Enter is retried.
 */
export const sendConfirmed = <E>(calls: TmuxSendCalls<E>) =>
  Effect.fnUntraced(function*(handle: RuntimeHandle, text: string) {
    const message = text.replace(/\s+$/, "")
    const before = inputLine(yield* calls.screen(handle))
    yield* calls.paste(handle, message)
    // Let the agent draw the paste first (a slow one may take a moment): until its input line changed and settled.
    let pasted = before
    for (let poll = 0; poll < CONFIRM_POLLS; poll++) {
      const now = inputLine(yield* calls.screen(handle))
      if (now !== before && now === pasted) break
      pasted = now
      yield* Effect.sleep(CONFIRM_POLL_INTERVAL)
    }
    for (let attempt = 1; attempt <= ENTER_ATTEMPTS; attempt++) {
      yield* calls.enter(handle)
      for (let poll = 0; poll < CONFIRM_POLLS; poll++) {
        const now = yield* calls.screen(handle)
        if (inputLine(now) !== pasted && !stillPending(now, message)) return
        yield* Effect.sleep(CONFIRM_POLL_INTERVAL)
      }
    }
    return yield* new DeliveryUnconfirmed({ target: handle.id, attempts: ENTER_ATTEMPTS })
  })
