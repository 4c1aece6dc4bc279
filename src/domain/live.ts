/**
 * Whether a session has ended, or has a live agent orch watches: plain functions over its status. No Schema here,
 * so the dashboard's page can import them without bundling one.
 */
import type { SessionRecord, SessionStatus } from "./session.ts"

/**
 * Statuses after which a session no longer has a live agent or workspace: `merged` (its PR merged), `done` (its PR
 * closed, or its issue completed), `killed` (a person killed it), `exited` (cleanup ended it after its agent
 * stopped, its work not landed).
 */
export const ENDED_STATUSES: ReadonlyArray<SessionStatus> = ["merged", "killed", "done", "exited"]
export const isEnded = (status: SessionStatus): boolean => ENDED_STATUSES.includes(status)

/**
 * A session with an agent to watch: not ended, and not still being spawned (the spawn owns it until then) nor a spawn
 * that was interrupted (reconcile undoes it).
 */
export const isLive = (record: Pick<SessionRecord, "status">): boolean =>
  !isEnded(record.status) && record.status !== "spawning" && record.status !== "interrupted"

/**
 * The status every list shows (`orch status`, `orch session ls`, the dashboard): a `spawning` record whose spawning
 * process is gone (`kill -9`, a crash) is `interrupted`, not `spawning`: nothing will finish it, and orch undoes it
 * (SessionManager's `reconcile`); so is one a kill was cut short on (its process gone), which reconcile finishes. A
 * record without a journal cannot tell, and shows as it is.
 */
export const shownStatus = (record: Pick<SessionRecord, "status" | "spawn" | "killing">, spawnerLives: boolean, killerLives = true): SessionStatus =>
  (record.status === "spawning" && record.spawn !== undefined && !spawnerLives) ||
    (record.killing !== undefined && record.status !== "killed" && !killerLives)
    ? "interrupted"
    : record.status

/**
 * A live session whose project is not in the config the running supervisor serves (it left the config while the
 * session ran): nothing probes it or reacts for it. `watched`: the ids of the projects the supervisor serves.
 */
export const isUnwatched = (record: Pick<SessionRecord, "status" | "projectId">, watched: ReadonlySet<string>): boolean =>
  isLive(record) && !watched.has(record.projectId)

/** The record as lists show it while a supervisor serves `watched` (undefined: no supervisor): `unwatched` when it is. */
export const watchedView = <R extends Pick<SessionRecord, "status" | "projectId">>(record: R, watched: ReadonlySet<string> | undefined): R =>
  watched !== undefined && isUnwatched(record, watched) ? { ...record, status: "unwatched" } : record

/** What a person does about an unwatched session, in one sentence (status, the dashboard). */
export const UNWATCHED_HINT = "its project is not in the config the supervisor serves, so nothing watches it (no probes, no reactions): " +
  "add the project back to that config to watch it again, or kill the session"

/**
 * A live session whose agent is seen gone (its terminal gone, or its agent exited) before anything recorded it: every
 * list shows it as the supervisor records such a session (activity `exited`, status `errored`: its worktree waits for
 * you), not as the `working` it last said.
 */
export const asAgentGone = <R extends Pick<SessionRecord, "status" | "activity">>(record: R): R =>
  isLive(record) ? { ...record, status: "errored", activity: "exited" } : record

/** A spawn whose process is gone, half-way: what reconcile undoes. */
export const isInterrupted = (record: Pick<SessionRecord, "status" | "spawn">, spawnerLives: boolean): boolean =>
  record.status === "spawning" && shownStatus(record, spawnerLives) === "interrupted"

/**
 * A session whose agent may be running: not ended, and its agent not seen to exit (an `errored` session keeps its
 * worktree, but no agent of it runs). What `maxSessions`, on a host or in admission, counts.
 */
export const holdsASlot = (record: Pick<SessionRecord, "status" | "activity">): boolean => !isEnded(record.status) && record.activity !== "exited"

/** A session whose PR waits on a person: open, checks green, not approved. What `maxAwaitingReview` counts. */
export const awaitsReview = (record: Pick<SessionRecord, "pr" | "checks" | "review">): boolean =>
  record.pr?.state === "open" && record.checks === "passing" && record.review !== "approved"
