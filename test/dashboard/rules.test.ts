/** The dashboard's pure rules: groups and actions per session, who may connect, socket URLs, the log read backwards. */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { originAllowed, requestToken } from "../../src/dashboard/auth.ts"
import { canKill, canMerge, canRestore, countGroups, groupOf, showsOnCard, toneOf } from "../../src/dashboard/board.ts"
import { lastEvents, sessionEvents, visitEventsBackward } from "../../src/dashboard/event-tail.ts"
import { parseViewer } from "../../src/dashboard/terminals.ts"
import { dashboardUrl, pageUrl, reachableHost } from "../../src/dashboard/urls.ts"
import type { OrchEvent } from "../../src/domain/event.ts"
import type { SessionRecord, SessionStatus } from "../../src/domain/session.ts"

const record = (status: SessionStatus, changes: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status,
  activity: "active",
  branch: "feat/1",
  workspacePath: "/w/app-1",
  runtime: { plugin: "multiplexer", id: "app-1", data: {} },
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-11-21T10:00:00.000Z",
  updatedAt: "2026-11-21T10:00:00.000Z",
  ...changes
})

describe("board groups", () => {
  it.each(
    [
      ["needs_input", "needs"],
      ["stuck", "needs"],
      ["errored", "needs"],
      ["review_pending", "review"],
      ["approved", "review"],
      ["mergeable", "review"],
      ["changes_requested", "review"],
      ["spawning", "working"],
      ["working", "working"],
      ["ready", "working"],
      ["idle", "working"],
      ["pr_open", "working"],
      ["ci_failed", "working"],
      ["merged", "done"],
      ["killed", "done"],
      ["done", "done"],
      ["exited", "done"],
      ["interrupted", "done"],
      ["unwatched", "needs"]
    ] as const
  )("%s is in %s", (status, group) => {
    assert.strictEqual(groupOf(record(status)), group)
    assert.isString(toneOf(status))
  })

  it("an escalated reaction puts a live session under needs you, but not an ended one", () => {
    const reactions = { "ci-failed": { attempts: 3, firstTriggeredAt: "2026-11-21T10:00:00.000Z", escalated: true } }
    assert.strictEqual(groupOf(record("ci_failed", { reactions })), "needs")
    assert.strictEqual(groupOf(record("killed", { reactions })), "done")
  })

  it("counts per group, for one project or all", () => {
    const records = [record("working"), record("stuck", { projectId: "web" }), record("merged"), record("mergeable")]
    assert.deepStrictEqual(countGroups(records), { needs: 1, review: 1, working: 1, done: 1 })
    assert.deepStrictEqual(countGroups(records, "web"), { needs: 1, review: 0, working: 0, done: 0 })
  })

  it("actions fit the session", () => {
    const pr = { number: 7, url: "http://pr/7", state: "open" as const }
    assert.isTrue(canMerge(record("mergeable", { pr })))
    assert.isFalse(canMerge(record("approved", { pr })))
    assert.isFalse(canMerge(record("mergeable", { pr: { ...pr, state: "merged" } })))
    assert.isTrue(canKill(record("working")))
    assert.isFalse(canKill(record("killed")))
    assert.isFalse(canKill(record("spawning")))
    assert.isTrue(canRestore(record("killed", { activity: "exited" })))
    assert.isTrue(canRestore(record("errored", { activity: "exited" })))
    assert.isTrue(canRestore(record("exited", { activity: "exited" })), "cleanup ended it after its agent stopped: it can run again")
    assert.isFalse(canKill(record("exited", { activity: "exited" })))
    assert.strictEqual(toneOf("exited"), "warn", "set apart from the sessions whose work landed")
    assert.isFalse(canRestore(record("working")))
    assert.isFalse(canRestore(record("merged", { activity: "exited" })))
    // A spawn whose process died half-way: orch undoes it; there is nothing to kill or restore.
    assert.isFalse(canKill(record("interrupted", { activity: "unknown" })))
    assert.isFalse(canRestore(record("interrupted", { activity: "unknown" })))
    assert.strictEqual(toneOf("interrupted"), "warn")
    // Its project left the config the supervisor serves: a person puts it back or kills the session.
    assert.isTrue(canKill(record("unwatched")))
    assert.isFalse(canRestore(record("unwatched")))
    assert.strictEqual(toneOf("unwatched"), "warn")
  })

  it("cards show progress, not deliveries or restarts", () => {
    const event = (type: OrchEvent["type"]): OrchEvent => ({ timestamp: "t", type, sessionId: "app-1" })
    assert.isTrue(showsOnCard(event("ci.failed")))
    assert.isFalse(showsOnCard(event("notification.sent")))
    assert.isFalse(showsOnCard(event("session.adopted")))
    assert.isFalse(showsOnCard({ timestamp: "t", type: "supervisor.started" }))
  })
})

describe("who may connect", () => {
  it("takes the token from Bearer, then the cookie, then the URL", () => {
    assert.strictEqual(requestToken({ url: "/?token=u", authorization: "Bearer b", cookie: "orch_token=c" }), "b")
    assert.strictEqual(requestToken({ url: "/?token=u", cookie: "a=1; orch_token=c" }), "c")
    assert.strictEqual(requestToken({ url: "/x?token=u" }), "u")
    assert.isUndefined(requestToken({ url: "/", authorization: "Basic x" }))
  })

  it.each(
    [
      [undefined, "127.0.0.1:3001", true],
      ["http://127.0.0.1:3000", "127.0.0.1:3001", true],
      ["http://localhost:3000", "localhost:3003", true],
      ["http://127.0.0.1:4000", "127.0.0.1:3001", false],
      ["http://evil.example:3000", "127.0.0.1:3001", false],
      ["http://localhost:3000", "127.0.0.1:3001", false],
      ["null", "127.0.0.1:3001", false],
      ["file://", "127.0.0.1:3001", false]
    ] as const
  )("Origin %s to %s: %s", (origin, host, allowed) => {
    assert.strictEqual(originAllowed(origin, host, 3000), allowed)
  })

  it("reads a viewer from the socket URL", () => {
    assert.deepStrictEqual(parseViewer("/terminal/app-1?cols=120&rows=40"), { sessionId: "app-1", cols: 120, rows: 40, readOnly: false })
    assert.deepStrictEqual(parseViewer("/terminal/app-1?cols=x&mode=read"), { sessionId: "app-1", cols: 80, rows: 24, readOnly: true })
    assert.strictEqual(parseViewer("/terminal/a?cols=99999")?.cols, 1000)
    assert.isUndefined(parseViewer("/other/app-1"))
  })

  it("prints reachable URLs", () => {
    assert.strictEqual(reachableHost("0.0.0.0"), "127.0.0.1")
    assert.strictEqual(reachableHost("::1"), "[::1]")
    assert.strictEqual(dashboardUrl({ host: "0.0.0.0", port: 3000 }, "t"), "http://127.0.0.1:3000/?token=t")
    assert.strictEqual(pageUrl("http://127.0.0.1:3000/?token=t", "/sessions/app-orchestrator"), "http://127.0.0.1:3000/sessions/app-orchestrator?token=t")
  })
})

describe("the event log read backwards", () => {
  const withLog = (write: (path: string) => void, check: (path: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), "orch-tail-"))
    try {
      const path = join(dir, "events.jsonl")
      write(path)
      check(path)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const line = (i: number, sessionId: string) =>
    `${
      JSON.stringify({
        timestamp: `2026-11-21T10:00:${String(i % 60).padStart(2, "0")}.000Z`,
        type: "session.working",
        sessionId,
        message: `ü${"ж".repeat(i % 97)}${i}`
      })
    }\n`

  it("visits every event newest first across chunk boundaries, multi-byte characters intact", () =>
    withLog((path) => {
      writeFileSync(path, Array.from({ length: 3000 }, (_, i) => line(i, `app-${i % 3}`)).join("") + "not json\n{\"partial\":")
    }, (path) => {
      assert.isAbove(statSync(path).size, 4 * 64 * 1024, "spans several chunks")
      const seen: Array<string> = []
      visitEventsBackward(path, (e) => {
        seen.push(e.message!)
        return true
      })
      assert.strictEqual(seen.length, 3000)
      assert.strictEqual(seen[0], `ü${"ж".repeat(2999 % 97)}2999`)
      assert.strictEqual(seen.at(-1), "ü0")
      assert.deepStrictEqual(sessionEvents(path, "app-1", 2).map((e) => e.message!.slice(-4)), ["2995", "2998"])
      const last = lastEvents(path, new Set(["app-0", "app-2", "app-9"]), () => true, Infinity)
      assert.deepStrictEqual([...last.keys()].sort(), ["app-0", "app-2"])
      assert.isTrue(last.get("app-0")!.message!.endsWith("2997"))
    }))

  it("reads no more than it is allowed, and a missing log has no events", () =>
    withLog((path) => writeFileSync(path, line(1, "old") + "x".repeat(200_000) + "\n" + line(2, "new")), (path) => {
      assert.deepStrictEqual([...lastEvents(path, new Set(["old", "new"]), () => true, 100_000).keys()], ["new"])
      assert.deepStrictEqual(sessionEvents(join(path, "missing"), "new", 5), [])
    }))
})
