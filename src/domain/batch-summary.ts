/**
 * What `orch batch-spawn` says: a line per issue, then the counts and, in plain words, why anything waits instead of
 * starting. Plain functions, shared by the full CLI and the fast path (src/ipc/fast-path.ts), which loads no Effect.
 */

/** What a batch's outcome (`BatchOutcome` in src/sessions/SessionOps.ts) needs to be told. */
export type OutcomeLine =
  | {
    readonly _tag: "Created"
    readonly issueId: string
    readonly record: { readonly sessionId: string; readonly branch: string; readonly host?: string | undefined }
    readonly warnings: ReadonlyArray<string>
  }
  | { readonly _tag: "Skipped"; readonly issueId: string; readonly sessionId: string }
  | { readonly _tag: "Failed"; readonly issueId: string; readonly reason: string }
  | { readonly _tag: "Queued"; readonly issueId: string; readonly entryId: string; readonly position: number; readonly reason: string }

/** One issue's line. */
export const describeOutcome = (outcome: OutcomeLine): string => {
  switch (outcome._tag) {
    case "Created":
      return `${outcome.issueId}: created ${outcome.record.sessionId} (${outcome.record.branch}${
        outcome.record.host !== undefined && outcome.record.host !== "local" ? `, on host ${outcome.record.host}` : ""
      })${outcome.warnings.map((w) => `; warning: ${w}`).join("")}`
    case "Skipped":
      return `${outcome.issueId}: skipped, ${outcome.sessionId} is already on it`
    case "Failed":
      return `${outcome.issueId}: failed: ${outcome.reason}`
    case "Queued":
      return `${outcome.issueId}: queued as ${outcome.entryId}, position ${outcome.position} (${outcome.reason})`
  }
}

/** The last words of a batch with failures (exit 1), after `orch: `. */
export const batchFailedMessage = (failed: number): string => `${failed} spawn${failed === 1 ? "" : "s"} failed`

/** When what waits starts, and where to see it: of one issue (`it`) or of several (`they`). */
const whenQueued = (one: boolean) =>
  one
    ? "it starts on its own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows it and why it waits"
    : "they start on their own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows them and why they wait"

export const batchSummary = (outcomes: ReadonlyArray<OutcomeLine>): ReadonlyArray<string> => {
  const count = (tag: OutcomeLine["_tag"]) => outcomes.filter((o) => o._tag === tag).length
  const queued = outcomes.flatMap((o) => (o._tag === "Queued" ? [o] : []))
  const counts = `created ${count("Created")}, skipped ${count("Skipped")}, failed ${count("Failed")}${queued.length > 0 ? `, queued ${queued.length}` : ""}`
  if (queued.length === 0) return [counts]
  const reasons = [...new Set(queued.map((o) => o.reason))]
  const why = reasons.length === 1 ? reasons[0]! : `${reasons[0]!}, and other reasons`
  const one = queued.length === 1
  const what = count("Created") === 0
    ? `Nothing started now: ${one ? "the issue waits" : queued.length === 2 ? "both wait" : `all ${queued.length} wait`} in the queue (${why}); ${
      whenQueued(one)
    }.`
    : `${one ? "1 of them did not start now and waits" : `${queued.length} of them did not start now and wait`} in the queue (${why}); ${whenQueued(one)}.`
  return [counts, what]
}
