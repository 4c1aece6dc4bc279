/**
 * What orch knows of each remote host, and when it is news: a pure step from the last view of a host and an
 * observation (a headroom reading, a failure to read it, or the connection answering again) to the next view and
 * the event to record. A host that stops answering is `host.down` once per outage (with one urgent notification,
 * sent by the caller); answering again is `host.up`, with how long it was down. `hosts.json` in orch's home holds the
 * views, written by the supervisor each round and read here (only the running supervisor's) for `orch hosts`,
 * `orch status` and admission.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { existsSync, readFileSync } from "node:fs"

export const HostFactsSchema = Schema.Struct({
  memAvailableMb: Schema.Number,
  memTotalMb: Schema.Number,
  load1: Schema.Number,
  cpus: Schema.Number,
  disk: Schema.Struct({ path: Schema.String, freeMb: Schema.Number }),
  tmux: Schema.optional(Schema.String),
  dataDir: Schema.optionalKey(Schema.String)
})

export const HostView = Schema.Struct({
  status: Schema.Literals(["up", "down"]),
  /** Since when (Unix ms) the host has been up, or down. */
  since: Schema.Number,
  lastError: Schema.optionalKey(Schema.String),
  /** The last headroom read, and when (Unix ms). */
  headroom: Schema.optionalKey(HostFactsSchema),
  readAt: Schema.optionalKey(Schema.Number)
})
export type HostView = typeof HostView.Type

/** `hosts.json`: every configured remote host's view, as of `writtenAt` (Unix ms). */
export const HostsFile = Schema.Struct({
  writtenAt: Schema.Number,
  /** The supervisor that wrote it: only the running one's word counts (an earlier one's views are stale). */
  pid: Schema.optionalKey(Schema.Int),
  hosts: Schema.Record(Schema.String, HostView)
})
export type HostsFile = typeof HostsFile.Type

export type HostObservation =
  | { readonly _tag: "Read"; readonly facts: typeof HostFactsSchema.Type }
  | { readonly _tag: "Failed"; readonly error: string }
  /** The connection answered again (a reconnect), with no new figures. */
  | { readonly _tag: "Answered" }

export type HostNews =
  | { readonly type: "host.down"; readonly message: string }
  | { readonly type: "host.up"; readonly message: string; readonly downForMs: number }

const minutes = (ms: number) => (ms < 60_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`)

export const watchHost = (
  host: string,
  previous: HostView | undefined,
  observation: HostObservation,
  now: number
): { readonly next: HostView; readonly news?: HostNews } => {
  if (observation._tag === "Failed") {
    if (previous?.status === "down") return { next: { ...previous, lastError: observation.error } }
    return {
      next: { ...previous, status: "down", since: now, lastError: observation.error },
      news: {
        type: "host.down",
        message: previous === undefined
          ? `${observation.error}; no session can run on host ${host} until it can be reached`
          : `${observation.error}; host ${host}'s sessions read unknown until it can be reached again`
      }
    }
  }
  const figures = observation._tag === "Read" ? { headroom: observation.facts, readAt: now } : {}
  if (previous?.status === "down") {
    const downForMs = now - previous.since
    return {
      next: { ...previous, ...figures, status: "up", since: now },
      news: { type: "host.up", message: `host ${host} answers again after ${minutes(downForMs)} down; its sessions are watched as before`, downForMs }
    }
  }
  return { next: { ...previous, ...figures, status: "up", since: previous?.since ?? now } }
}

/** The hosts.json of the supervisor `supervisorPid`, or why it cannot be read; undefined when it wrote none. */
export const readHostsFile = (path: string, supervisorPid: number): Result.Result<HostsFile, string> | undefined => {
  if (!existsSync(path)) return undefined
  const read = Result.try(() => readFileSync(path, "utf8")).pipe(
    Result.mapError((error) => (error instanceof Error ? error.message : String(error))),
    Result.flatMap((text) =>
      Result.mapError(Schema.decodeUnknownResult(Schema.fromJsonString(HostsFile))(text), (error) => error.message.split("\n").join(" "))
    )
  )
  return Result.isSuccess(read) && read.success.pid !== supervisorPid ? undefined : read
}

/** The remote hosts as the supervisor `supervisorPid` last saw them (hosts.json); none when it wrote no file of its own. */
export const hostViewsOf = (path: string, supervisorPid: number): ReadonlyMap<string, HostView> => {
  const file = readHostsFile(path, supervisorPid)
  return new Map(file !== undefined && Result.isSuccess(file) ? Object.entries(file.success.hosts) : [])
}
