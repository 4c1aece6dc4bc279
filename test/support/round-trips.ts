/** A connection service that counts its round trips (every `run`, whatever the host), for tests of how many a step takes. */
import * as Effect from "effect/Effect"
import type { HostConnectionsShape } from "../../src/hosts/HostConnections.ts"

export const countingRoundTrips = (connections: HostConnectionsShape) => {
  let trips = 0
  const counted: HostConnectionsShape = {
    ...connections,
    run: (host, script, options) => Effect.suspend(() => (trips++, connections.run(host, script, options)))
  }
  return { counted, trips: () => trips }
}
