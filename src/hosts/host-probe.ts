/**
 * The supervisor's probe of one host: one round trip for all of its sessions, whatever their project, that answers
 * their liveness (its tmux) and reads what their activity files there gained (activity-mirror.ts), which is then
 * appended to their local activity files. A host that cannot answer fails the whole probe: its sessions stay
 * unprobed (`unknown`, never exited).
 */
import * as Effect from "effect/Effect"
import type { RuntimeHandle } from "../domain/session.ts"
import type { Liveness } from "../plugins/runtime/Runtime.ts"
import type { StorePaths } from "../store/paths.ts"
import { activityScript, applyMirror, mirrorOffset, parseActivity } from "./activity-mirror.ts"
import type { HostConnectionsShape } from "./HostConnections.ts"
import { makeRemoteTmux } from "./remote-tmux.ts"

export interface HostSession {
  readonly projectId: string
  readonly sessionId: string
  readonly runtime: RuntimeHandle
}

export interface HostProbe {
  readonly liveness: ReadonlyMap<string, Liveness>
  /** Why the activity read could not be kept here (a local file that cannot be written), when it could not. */
  readonly mirrorFailed?: string
}

export const probeHost = Effect.fn("HostProbe.probe")(function*(
  connections: HostConnectionsShape,
  paths: StorePaths,
  host: string,
  dataDir: string | undefined,
  sessions: ReadonlyArray<HostSession>
) {
  const tails = sessions.map(({ projectId, sessionId }) => ({ projectId, sessionId, offset: mirrorOffset(paths, projectId, sessionId) }))
  const probed = yield* makeRemoteTmux(connections, host, dataDir).probeWith(
    sessions.map((session) => session.runtime),
    activityScript(dataDir ?? "~/.orchestrator", tails)
  )
  const mirrored = yield* Effect.result(applyMirror(paths, tails, parseActivity(probed.rider)))
  return {
    liveness: probed.liveness,
    ...(mirrored._tag === "Failure" ? { mirrorFailed: mirrored.failure.message } : {})
  } satisfies HostProbe
})
