/**
 * Ports for servers a test starts in another process (a supervisor, sshd). A port taken from the kernel with
 * `listen(0)` and released lies in the ephemeral range, which the kernel also hands to outgoing connections: with
 * test files running side by side, another process took such a port before the supervisor bound it. These ports
 * come from below the ephemeral range, from a slice of their own per vitest worker, and each is bound once to
 * prove it free; the ports of one call are held together, so they are distinct.
 */
import * as Effect from "effect/Effect"
import { createServer, type Server } from "node:net"

const SLICE = 3000
const FIRST = 20_000
const SLICES = 4

const sliceStart = (): number => FIRST + ((Number(process.env.VITEST_POOL_ID ?? process.pid) - 1) % SLICES) * SLICE

const bind = (port: number, address: string) =>
  Effect.callback<Server | undefined>((resume) => {
    const server = createServer()
    server.once("error", () => resume(Effect.succeed(undefined)))
    server.listen(port, address, () => resume(Effect.succeed(server)))
  })

const close = (server: Server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))

/** `count` distinct ports nothing listens on at `address` right now. */
export const freePorts = (count: number, address = "127.0.0.1") =>
  Effect.gen(function*() {
    const held: Array<Server> = []
    const start = sliceStart()
    for (let tries = 0; held.length < count; tries++) {
      if (tries > 200) return yield* Effect.die(new Error(`no free port in ${start}–${start + SLICE} on ${address}`))
      const server = yield* bind(start + Math.floor(Math.random() * SLICE), address)
      if (server !== undefined) held.push(server)
    }
    const ports = held.map((server) => (server.address() as { port: number }).port)
    yield* Effect.forEach(held, close, { discard: true })
    return ports
  })

/** One port nothing listens on at 127.0.0.1 right now. */
export const freePort = Effect.map(freePorts(1), ([port]) => port!)
