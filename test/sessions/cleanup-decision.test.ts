import { describe, expect, it } from "@effect/vitest"
import type { SessionRecord } from "../../src/domain/session.ts"
import type { Liveness } from "../../src/plugins/runtime/Runtime.ts"
import type { IssueState } from "../../src/plugins/tracker/Tracker.ts"
import { type CleanupVerdict, cleanupVerdict, isCleanable, settledVerdict } from "../../src/sessions/cleanup-decision.ts"

const session = (fields: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "12",
  status: "working",
  activity: "active",
  branch: "feat/12",
  workspacePath: "/w",
  runtime: { plugin: "multiplexer", id: "app-1", data: {} },
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...fields
})
const pr = (state: "open" | "draft" | "merged" | "closed") => ({ pr: { number: 8, url: "https://github.com/acme/app/pull/8", state } })
const ALIVE: Liveness = { _tag: "Alive" }
const GONE: Liveness = { _tag: "Gone" }
const exited = (exitCode?: number, signal?: number): Liveness => ({
  _tag: "Exited",
  ...(exitCode !== undefined ? { exitCode } : {}),
  ...(signal !== undefined ? { signal } : {})
})
const DONE: IssueState = { name: "Done", completed: true }
const IN_PROGRESS: IssueState = { name: "In Progress", completed: false }

describe("cleanup decision: which status and reason a cleaned session gets", () => {
  it.each<[string, SessionRecord, IssueState | undefined, Liveness | undefined, CleanupVerdict | undefined, boolean?]>([
    // the PR decides first, whatever the agent is doing
    ["merged PR, agent still alive", session(pr("merged")), undefined, ALIVE, { status: "merged", cause: "pr-merged", reason: "PR #8 merged" }],
    ["merged PR, issue also done", session(pr("merged")), DONE, GONE, { status: "merged", cause: "pr-merged", reason: "PR #8 merged" }],
    ["PR closed without merging", session(pr("closed")), undefined, ALIVE, { status: "done", cause: "pr-closed", reason: "PR #8 closed without merging" }],
    // then the tracker
    ["issue completed, agent alive", session(), DONE, ALIVE, { status: "done", cause: "issue-completed", reason: "issue 12 is Done" }],
    ["issue canceled, PR open", session(pr("open")), { name: "Canceled", completed: true }, undefined, {
      status: "done",
      cause: "issue-completed",
      reason: "issue 12 is Canceled"
    }],
    // then the agent: stopped before its work landed is `exited`, never `done`
    ["terminal gone, never opened a PR", session(), undefined, GONE, {
      status: "exited",
      cause: "terminal-gone",
      reason: "its terminal session is gone, and no PR was opened"
    }],
    ["agent exited with a code, no PR", session(), IN_PROGRESS, exited(127), {
      status: "exited",
      cause: "agent-exited",
      reason: "its agent exited (code 127) before opening a PR"
    }],
    ["agent killed by a signal, no PR", session(), undefined, exited(undefined, 9), {
      status: "exited",
      cause: "agent-exited",
      reason: "its agent exited (signal 9) before opening a PR"
    }],
    ["agent exited, code unknown, PR open", session({ ...pr("open"), status: "errored" }), undefined, exited(), {
      status: "exited",
      cause: "agent-exited",
      reason: "its agent exited; PR #8 is still open"
    }],
    ["terminal gone, draft PR", session(pr("draft")), undefined, GONE, {
      status: "exited",
      cause: "terminal-gone",
      reason: "its terminal session is gone; PR #8 is still a draft"
    }],
    ["no terminal recorded at all counts as gone", session({ runtime: null }), undefined, undefined, {
      status: "exited",
      cause: "terminal-gone",
      reason: "its terminal session is gone, and no PR was opened"
    }],
    ["an orchestrator session opens no PR, so none is missed", session({ role: "orchestrator", sessionId: "app-orchestrator" }), undefined, exited(0), {
      status: "exited",
      cause: "agent-exited",
      reason: "its agent exited (code 0)"
    }],
    // a project with no scm opens no PR: none was missed, the work is on its branch
    ["no scm, terminal gone", session(), undefined, GONE, {
      status: "exited",
      cause: "terminal-gone",
      reason: "its terminal session is gone; the project has no scm, so its work is on branch feat/12, not in a PR"
    }, false],
    ["no scm, agent exited", session(), undefined, exited(0), {
      status: "exited",
      cause: "agent-exited",
      reason: "its agent exited (code 0); the project has no scm, so its work is on branch feat/12, not in a PR"
    }, false],
    // left alone
    ["alive, nothing settled", session(pr("open")), IN_PROGRESS, ALIVE, undefined],
    ["liveness unknown (not probed, or the probe failed) is never dead", session(), undefined, undefined, undefined],
    ["already ended by an earlier cleanup", session({ ...pr("merged"), status: "merged", endedAt: "2026-01-02T00:00:00.000Z" }), undefined, GONE, undefined],
    ["killed by a person", session({ status: "killed" }), DONE, GONE, undefined],
    ["a spawn under way is reconcile's, not cleanup's", session({ status: "spawning" }), undefined, GONE, undefined]
  ])("%s", (_name, record, issueState, liveness, expected, followsPrs = true) => {
    expect(cleanupVerdict(record, { issueState, liveness, followsPrs })).toEqual(expected)
  })

  it("a probe is needed exactly when neither the PR nor the issue settles the session", () => {
    expect(settledVerdict(session(pr("merged")))?.status).toBe("merged")
    expect(settledVerdict(session(), DONE)?.status).toBe("done")
    expect(settledVerdict(session(pr("open")), IN_PROGRESS)).toBeUndefined()
    expect(settledVerdict(session({ ...pr("merged"), status: "killed" }))).toBeUndefined()
    expect([session(), session({ status: "spawning" }), session({ endedAt: "2026-01-02T00:00:00.000Z" })].map(isCleanable)).toEqual([true, false, false])
  })
})
