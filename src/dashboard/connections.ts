/**
 * The dashboard's HTTP server, and every connection it accepted, so that stopping it closes them all. Node's `close`
 * stops listening and closes only the HTTP connections idle at that moment: one busy then (a browser's fetch, a
 * request half-sent) stays open after its answer, and a socket an upgrade took over is no longer the HTTP server's to
 * close. Left open, a client's connection keeps the supervisor's process alive after its stop, for as long as the
 * client likes (a browser reuses it for its next request, which nothing answers any more).
 *
 * Node says only when a server has closed, once every connection ended; this one also says when it starts to, so
 * answers that never end on their own (the live stream) end then, and the close is not kept waiting for them.
 */
import { Server } from "node:http"
import type { Socket } from "node:net"

export interface Connections {
  /** Closes every connection still open (at once: whatever grace they get is given before); answers how many were. */
  readonly closeAll: () => number
}

/** An HTTP server that calls its `onClosing` listeners as `close` begins. */
export class ClosingServer extends Server {
  readonly #closing: Array<() => void> = []
  /** `listener` runs once, when the server starts to close. */
  onClosing(listener: () => void): void {
    this.#closing.push(listener)
  }
  override close(callback?: (error?: Error) => void): this {
    for (const listener of this.#closing.splice(0)) listener()
    return super.close(callback)
  }
}

export const trackConnections = (server: Server): Connections => {
  const open = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    open.add(socket)
    socket.once("close", () => open.delete(socket))
  })
  return {
    closeAll: () => {
      const left = open.size
      for (const socket of open) socket.destroy()
      return left
    }
  }
}
