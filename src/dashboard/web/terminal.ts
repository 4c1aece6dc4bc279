/**
 * A session's live terminal: xterm.js attached to the supervisor's terminal socket, sized to its box (fit
 * addon) and resized with it. Loaded only on session pages. It reconnects by itself after a dropped
 * connection, and stops when the server says there is no live terminal (4404): the page mounts it again once
 * the session is live.
 */
import { FitAddon } from "@xterm/addon-fit"
import { Terminal } from "@xterm/xterm"
import { doublingDelay } from "../../domain/backoff.ts"

export type TerminalStatus = "connecting" | "connected" | "disconnected" | "ended" | "none"

export interface TerminalOptions {
  /** The socket URL for a terminal of this size. */
  readonly url: (size: { readonly cols: number; readonly rows: number }) => string
  readonly readOnly: boolean
  readonly onStatus: (status: TerminalStatus, detail: string) => void
}

const THEME = {
  background: "#0b0e14",
  foreground: "#d7dce2",
  cursor: "#8fb4ff",
  selectionBackground: "#2c3b5a",
  black: "#1c2129",
  brightBlack: "#5c6773",
  red: "#f07178",
  brightRed: "#ff8f95",
  green: "#a6d189",
  brightGreen: "#c3e88d",
  yellow: "#e5c07b",
  brightYellow: "#ffd580",
  blue: "#73a7f5",
  brightBlue: "#8fb4ff",
  magenta: "#c792ea",
  brightMagenta: "#d4a8f5",
  cyan: "#89ddff",
  brightCyan: "#a3e7ff",
  white: "#d7dce2",
  brightWhite: "#ffffff"
}

const CLOSE_NO_TERMINAL = 4404
const CLOSE_ENDED = 4410

export const mountTerminal = (host: HTMLElement, options: TerminalOptions) => {
  const terminal = new Terminal({
    cursorBlink: !options.readOnly,
    disableStdin: options.readOnly,
    fontFamily: "ui-monospace, SFMono-Regular, \"JetBrains Mono\", Menlo, Consolas, monospace",
    fontSize: window.matchMedia("(max-width: 640px)").matches ? 11 : 13,
    lineHeight: 1.15,
    scrollback: 5000,
    theme: THEME
  })
  const fit = new FitAddon()
  terminal.loadAddon(fit)
  terminal.open(host)
  fit.fit()

  let socket: WebSocket | undefined
  let attempt = 0
  let retry: ReturnType<typeof setTimeout> | undefined
  let disposed = false
  const send = (message: unknown) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
  }

  const connect = () => {
    options.onStatus("connecting", "")
    const current = new WebSocket(options.url({ cols: terminal.cols, rows: terminal.rows }))
    socket = current
    current.onopen = () => {
      attempt = 0
      // The server draws the whole screen for a new viewer: start from a clean one.
      terminal.reset()
      options.onStatus("connected", "")
    }
    current.onmessage = (event) => terminal.write(event.data as string)
    current.onclose = (event) => {
      if (disposed || socket !== current) return
      if (event.code === CLOSE_NO_TERMINAL) return options.onStatus("none", event.reason)
      options.onStatus(event.code === CLOSE_ENDED ? "ended" : "disconnected", event.reason)
      retry = setTimeout(connect, doublingDelay(500, ++attempt, 10_000))
    }
  }

  terminal.onData((data) => {
    if (!options.readOnly) send({ type: "input", data })
  })
  terminal.onResize(({ cols, rows }) => send({ type: "resize", cols, rows }))
  const resized = new ResizeObserver(() => {
    if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit()
  })
  resized.observe(host)
  connect()

  return {
    focus: () => terminal.focus(),
    dispose: () => {
      disposed = true
      clearTimeout(retry)
      resized.disconnect()
      socket?.close()
      terminal.dispose()
    }
  }
}

export type MountedTerminal = ReturnType<typeof mountTerminal>
