/**
 * Intake end to end: a real supervisor asks the repohost emulator for the project's open issues with its labels,
 * one request per poll, queues each once with its labels' priority, drops one that closes, and admits them as
 * the budgets allow.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"

describe("intake (a real supervisor and the repohost emulator)", () => {
  it.live("labelled issues are queued once with their priority, a closed one is dropped, and they start as sessions free up", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { maxSessions: 1 } })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const first = emulator.addIssue("acme/app", { title: "Wanted", labels: ["orch"] })
      emulator.addIssue("acme/app", { title: "Not for agents", labels: ["bug"] })
      const urgent = emulator.addIssue("acme/app", { title: "Wanted first", labels: ["orch", "urgent"] })
      const closing = emulator.addIssue("acme/app", { title: "Wanted, then closed", labels: ["orch"] })
      s.writeConfig({
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        intake: { labels: ["orch"], pollIntervalMs: 1000, priorities: { urgent: 5 } }
      })
      // The only session slot is taken first, so intake's entries wait where they can be seen.
      assert.strictEqual((yield* s.orch(["spawn", "app", "--task", "Hold the slot"])).code, 0)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const queued = () => s.events().filter((e) => e.type === "queue.added").map((e) => e.issueId)
      yield* eventually("intake's entries", () => queued().length === 3, 20_000)
      assert.sameMembers(queued(), [String(first), String(urgent), String(closing)])
      const ls = (yield* s.orch(["queue", "ls"])).stdout
      assert.match(ls, new RegExp(`1\\. q-\\d+ app ${urgent} "Wanted first" \\(priority 5\\): waiting for a free session: 1 running, maxSessions 1`))
      // orch status lists them the same way.
      assert.match((yield* s.orch(["status"])).stdout, new RegExp(`  1\\. q-\\d+ app ${urgent} "Wanted first" \\(priority 5\\): waiting for a free session`))

      emulator.closeIssue("acme/app", closing)
      yield* eventually("the closed issue's entry dropped", () => s.events().some((e) => e.type === "queue.dropped" && e.issueId === String(closing)), 20_000)
      // One request per poll, and each issue queued once however many polls saw it.
      const polls = emulator.requests.filter((r) => r.url.startsWith("/repos/acme/app/issues?")).length
      assert.isAtLeast(polls, 2)
      assert.lengthOf(s.events().filter((e) => e.type === "queue.added"), 3)

      // The slot frees: the urgent one starts first.
      const holder = s.events().find((e) => e.type === "session.spawned")!.sessionId as string
      assert.strictEqual((yield* s.orch(["session", "kill", holder])).code, 0)
      const admitted = yield* eventually("an admission", () => s.events().find((e) => e.type === "queue.admitted"), 20_000)
      assert.strictEqual(admitted.issueId, String(urgent))
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 90_000)
})
