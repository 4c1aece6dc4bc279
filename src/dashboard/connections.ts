/**
 * Every connection a server of the dashboard accepted, so that stopping it closes them all. Node's `close` stops
 * listening and closes only the HTTP connections idle at that moment: one busy then (a browser's fetch, a request
 * half-sent) stays open after its answer, and a socket an upgrade took over is no longer the HTTP server's to close.
 * Left open, a client's connection keeps the supervisor's process alive after its stop, for as long as the client
 * likes (a browser reuses it for its next request, which nothing answers any more).
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"

export interface Connections {
  /** Closes every connection still open (at once: whatever grace they get is given before). */
  readonly closeAll: () => void
}

export const trackConnections = (server: Server): Connections => {
  const open = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    open.add(socket)
    socket.once("close", () => open.delete(socket))
  })
  return {
    closeAll: () => {
      for (const socket of open) socket.destroy()
    }
  }
}
