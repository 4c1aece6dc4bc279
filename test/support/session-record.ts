/** A live session's record and the lifecycle's rules as the actor tests start from them, at a time of the test's choosing. */
import type { LifecycleRules } from "../../actors/rules/lifecycle.ts"
import type { SessionRecord } from "../../src/domain/session.ts"

const MIN = 60_000

/** The rules a supervisor runs with by default (agent-stuck at 10 m, ready → idle at 5 m, a limit retried after 5 m). */
export const defaultRules: LifecycleRules = {
  quietMs: 3000,
  hookSilenceMs: MIN,
  readyThresholdMs: 5 * MIN,
  stuckThresholdMs: 10 * MIN,
  deadAfterProbes: 3,
  rateLimitRetryMs: 5 * MIN
}

/** Session app-1 of project app, working on issue 1 in tmux since `at`, with `fields` over it. */
export const workingSession = (at: number, fields: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status: "working",
  activity: "active",
  activitySince: new Date(at).toISOString(),
  branch: "feat/1",
  workspacePath: "/w",
  runtime: { plugin: "multiplexer", id: "app-1", data: {} },
  agent: { plugin: "command" },
  pr: null,
  createdAt: new Date(at).toISOString(),
  updatedAt: new Date(at).toISOString(),
  ...fields
})
