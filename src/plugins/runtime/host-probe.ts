/**
 * The supervisor's probe of one host: one round trip for all of its sessions, whatever their project, that answers
 * their liveness (its tmux) and reads what their activity files there gained (activity-mirror.ts), which is then
 * appended to their local activity files. When they are due, the minute's reads of the host (its headroom, and the
 * `ps` that measures session sizes) ride the same round trip. A host that cannot answer fails the whole probe: its
 * sessions stay unprobed (`unknown`, never exited).
 */
import * as Effect from "effect/Effect"
import type { RuntimeHandle } from "../../domain/session.ts"
import { activityScript, applyMirror, mirrorOffset, parseActivity } from "../../hosts/activity-mirror.ts"
import { headroomScript, type HostFacts, parseHeadroom } from "../../hosts/headroom.ts"
import type { HostConnectionsShape } from "../../hosts/HostConnections.ts"
import type { StorePaths } from "../../store/paths.ts"
import { makeRemoteTmux } from "./remote-tmux.ts"
import type { Liveness } from "./Runtime.ts"

export interface HostSession {
  readonly projectId: string
  readonly sessionId: string
  readonly runtime: RuntimeHandle
}

export interface HostProbe {
  readonly liveness: ReadonlyMap<string, Liveness>
  /** Why the activity read could not be kept here (a local file that cannot be written), when it could not. */
  readonly mirrorFailed?: string
  /** The host's headroom, when asked (`minute.headroom`): its figures, or why they could not be read. */
  readonly headroom?: HostFacts | string
  /** `ps -e -o pid=,ppid=,rss=` on the host, when asked (`minute.ps`). */
  readonly ps?: string
}

/** The minute's reads of a host that ride its probe when due, instead of each taking a round trip of its own. */
export interface MinuteReads {
  readonly headroom: boolean
  readonly ps: boolean
}

export const PS_COMMAND = "ps -e -o pid=,ppid=,rss="

const PART = "@orch-part"

/** The rider's parts: the activity read first, then each part the script named with a PART line. */
const parts = (rider: string): ReadonlyMap<string, string> => {
  const found = new Map<string, string>()
  const pieces = rider.split(new RegExp(`^${PART} (\\w+)\n`, "m"))
  found.set("activity", pieces[0]!)
  for (let i = 1; i + 1 < pieces.length; i += 2) found.set(pieces[i]!, pieces[i + 1]!)
  return found
}

export const probeHost = Effect.fn("HostProbe.probe")(function*(
  connections: HostConnectionsShape,
  paths: StorePaths,
  host: string,
  dataDir: string | undefined,
  sessions: ReadonlyArray<HostSession>,
  minute: MinuteReads = { headroom: false, ps: false }
) {
  const tails = sessions.map(({ projectId, sessionId }) => ({ projectId, sessionId, offset: mirrorOffset(paths, projectId, sessionId) }))
  const probed = yield* makeRemoteTmux(connections, host, dataDir).probeWith(
    sessions.map((session) => session.runtime),
    `${activityScript(dataDir ?? "~/.orchestrator", tails)}${minute.headroom ? `echo ${PART} headroom\n(${headroomScript(dataDir)})\n` : ""}${
      minute.ps ? `echo ${PART} ps\n${PS_COMMAND}\n` : ""
    }`
  )
  const answer = parts(probed.rider)
  const mirrored = yield* Effect.result(applyMirror(paths, tails, parseActivity(answer.get("activity") ?? "")))
  const headroom = answer.get("headroom")
  const ps = answer.get("ps")
  return {
    liveness: probed.liveness,
    ...(mirrored._tag === "Failure" ? { mirrorFailed: mirrored.failure.message } : {}),
    ...(minute.headroom ? { headroom: headroom === undefined ? "its answer was cut short" : parseHeadroom(headroom) } : {}),
    ...(minute.ps && ps !== undefined ? { ps } : {})
  } satisfies HostProbe
})
