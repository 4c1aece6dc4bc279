/**
 * What became of a spawn whose `orch spawn` was interrupted (Ctrl-C, a signal): read from the events appended since
 * it asked. `session.spawned` says it finished (and which session it is); `session.spawn_failed` says it was
 * stopped and what it had made undone. Pure: the callers read the event log (the CLI, and the fast path, which loads
 * no Effect, alike) and say it in one sentence.
 */

/** The part of an event this reads; anything else in the log is passed over. */
export interface SpawnEventLike {
  readonly type: string
  readonly sessionId?: string | undefined
  readonly projectId?: string | undefined
  readonly issueId?: string | undefined
  readonly data?: { readonly task?: unknown } | undefined
}

/** What was asked: an issue id as orch keeps it (normalIssueId), or a task's title (taskTitle). */
export type SpawnAsked = { readonly project: string } & ({ readonly issueId: string } | { readonly taskTitle: string })

export type SpawnFate =
  | { readonly _tag: "Finished"; readonly sessionId: string }
  | { readonly _tag: "Undone" }
  | { readonly _tag: "Unknown" }

const about = (event: SpawnEventLike, asked: SpawnAsked) =>
  "issueId" in asked ? event.issueId === asked.issueId && event.data?.task === undefined : event.data?.task === asked.taskTitle

/**
 * The fate of the spawn `asked` among `events` (oldest first, all appended after it was asked). Its project is
 * matched by id when an event has it; a project named by its config key (not its id) still matches on the issue.
 */
export const spawnFate = (events: ReadonlyArray<SpawnEventLike>, asked: SpawnAsked): SpawnFate => {
  const candidates = events.filter((event) => (event.type === "session.spawned" || event.type === "session.spawn_failed") && about(event, asked))
  const ours = candidates.filter((event) => event.projectId === asked.project)
  const last = (ours.length > 0 ? ours : candidates).at(-1)
  if (last === undefined) return { _tag: "Unknown" }
  return last.type === "session.spawned" && last.sessionId !== undefined ? { _tag: "Finished", sessionId: last.sessionId } : { _tag: "Undone" }
}

/** `the spawn of issue 42 in app` / `the spawn of the task "Fix the login"`. */
const what = (
  asked: SpawnAsked
) => ("issueId" in asked ? `the spawn of issue ${asked.issueId} in ${asked.project}` : `the spawn of the task "${asked.taskTitle}"`)

/** The one sentence an interrupted `orch spawn` prints (after `orch: `). `begun`: whether the spawn was asked for at all. */
export const interruptedSpawnSentence = (asked: SpawnAsked, begun: boolean, fate: SpawnFate): string => {
  if (!begun) return `interrupted before ${what(asked)} began; nothing was made`
  switch (fate._tag) {
    case "Finished":
      return `interrupted, but ${what(asked)} had already finished: ${fate.sessionId} runs (\`orch session kill ${fate.sessionId}\` ends it)`
    case "Undone":
      return `interrupted: ${what(asked)} was stopped and what it had made undone; no session was started`
    case "Unknown":
      return `interrupted: ${
        what(asked)
      } was told to stop, but orch has not seen it finish or be undone yet; \`orch status\` shows whether a session was started`
  }
}
