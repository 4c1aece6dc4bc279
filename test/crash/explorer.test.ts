/**
 * The crash-point explorer (docs/crash-explorer.md) on a few fixed seeds; bench/crash-explorer.mjs runs many. The
 * seeds here crash commands, whose crash points are the same in every run (a supervisor's depend a little on its
 * clock), at points where main already recovers: each run must crash where planned, recover, and break nothing.
 * The invariants themselves are shown to catch what is lost on a machine where it was lost by hand.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { announcementOf } from "../../src/domain/conflict-sides.ts"
import { workingSession } from "../support/session-record.ts"
import { exploreSeed, makeProfiles, type Outcome } from "./explorer.ts"
import { checkInvariants, checkShownAfterCrash } from "./invariants.ts"
import { scenarioNamed } from "./scenarios.ts"
import { makeWorld } from "./world.ts"

const SEEDS = [
  // SIGKILL of `orch session restore app-1` at "tmux new-session: after", no supervisor running
  { seed: 31, scenario: "kill-restore-offline" },
  // SIGTERM of `orch session restore app-1` at "tmux kill-session: after"
  { seed: 106, scenario: "kill-restore-offline" },
  // SIGKILL of `orch queue add app 1 2 3` at "rename queue.json: after", before the supervisor starts
  { seed: 112, scenario: "queue-offline" },
  // Kills and spawns cut short, of the kinds that lost work or told untruths before issue 20's fixes:
  // SIGTERM of `orch session kill app-1` at "append session.rescued: before" (its record said working, with no terminal)
  { seed: 36, scenario: "kill-restore-offline" },
  // SIGKILL of `orch session kill app-1` at "git update-ref rescue: after"
  { seed: 62, scenario: "batch-spawn-offline" },
  // SIGKILL of `orch spawn app 1` at "rename prompt.md: before" (it showed `spawning` until a later command)
  { seed: 20, scenario: "kill-restore-offline" },
  // SIGKILL of `orch spawn app 1` right after its worktree was made
  { seed: 88, scenario: "spawn" },
  // SIGINT of `orch batch-spawn app 1 2 3 4` once it had queued what waits
  { seed: 28, scenario: "batch-spawn-offline" },
  // SIGKILL of `orch queue add app --task "Write the changelog"` at "append queue.added: before" (its event left in the outbox)
  { seed: 5, scenario: "queue-task" },
  // SIGINT of the supervisor while its merge train works (around its 140th point: where, varies a little with timing)
  { seed: 15, scenario: "merge-train" },
  // SIGKILL of `orch batch-spawn app 1 2 3 4` at "rename session.json: before", inside its first starts (issues 1 and 2
  // were dropped without a word before the batch was written to the queue first)
  { seed: 3, scenario: "batch-spawn-offline" }
]

describe("the crash-point explorer", () => {
  it.live("fixed seeds: each crashes where planned, recovers, and keeps every invariant", () =>
    Effect.promise(async () => {
      const profiles = makeProfiles()
      const outcomes: Array<Outcome | undefined> = []
      // Two at a time, as on a 2-core machine.
      const lanes = [SEEDS.filter((_, i) => i % 2 === 0), SEEDS.filter((_, i) => i % 2 === 1)]
      await Promise.all(lanes.map(async (lane) => {
        for (const { scenario, seed } of lane) outcomes.push(await exploreSeed(seed, profiles, scenario))
      }))
      for (const outcome of outcomes) {
        assert.isDefined(outcome)
        assert.isTrue(outcome!.crashed, `seed ${outcome!.seed}: ${outcome!.planned}: the crash never came`)
        assert.strictEqual(outcome!.died?.n, outcome!.crash._tag === "Point" ? outcome!.crash.n : undefined)
        assert.deepStrictEqual(outcome!.violations, [])
      }
      // The scenarios' uninterrupted runs, which the crashes were drawn from, keep them too.
      for (const name of new Set(SEEDS.map((s) => s.scenario))) assert.deepStrictEqual((await profiles(scenarioNamed(name))).violations, [])
    }), 240_000)

  it.live("the invariants name what was lost, where", () =>
    Effect.promise(async () => {
      const world = await makeWorld({ issues: 1 })
      try {
        assert.deepStrictEqual(checkInvariants(world, { confirmed: new Set(), removedByScenario: new Set() }), [])
        mkdirSync(world.dataDir, { recursive: true })
        const added = { timestamp: new Date().toISOString(), type: "queue.added", projectId: "app", issueId: "1", data: { entryId: "q-1" } }
        // A predicted conflict told twice, and one conflicts.json shows that nothing told and nothing holds as pending.
        const side = (sessionId: string, head: string) => ({ sessionId, branch: `feat/${sessionId}`, head })
        const told = { projectId: "app", a: side("app-1", "a1"), b: side("app-2", "b1"), kind: "conflict" as const, files: ["x"] }
        const untold = { ...told, a: side("app-1", "a2") }
        const predictedEvent = { timestamp: added.timestamp, type: "session.conflict_predicted", data: { key: announcementOf(told) } }
        writeFileSync(join(world.dataDir, "conflicts.json"), JSON.stringify({ updatedAt: added.timestamp, predictions: [told, untold] }))
        writeFileSync(
          join(world.dataDir, "events.jsonl"),
          `${JSON.stringify(added)}\n${JSON.stringify(predictedEvent)}\n${JSON.stringify(predictedEvent)}\n{"type":"queue.admitted"\n`
        )
        writeFileSync(join(world.dataDir, "queue.json"), JSON.stringify({ next: 2, entries: [] }))
        const record = workingSession(Date.now(), { sessionId: "app-5", issueId: "5", branch: "feat/5", workspacePath: join(world.root, "gone") })
        mkdirSync(join(world.dataDir, "sessions", "app", "app-5"), { recursive: true })
        writeFileSync(
          join(world.dataDir, "sessions", "app", "app-5", "session.json"),
          JSON.stringify({ ...record, runtime: { ...record.runtime!, id: "app-5" } })
        )
        writeFileSync(world.startedLog, "app-9 3\n")
        world.git(world.repo, "branch", "feat/7")
        const violations = checkInvariants(world, { confirmed: new Set(["1"]), removedByScenario: new Set() })
        const expected = [
          /^events\.jsonl line 4 does not parse as an event/,
          /^session\.conflict_predicted app:app-1\|app-2 conflict x a1 b1 was told 2 times$/,
          /^conflicts\.json shows app:app-1\|app-2 conflict x a2 b1, but no session\.conflict_predicted told it and none is pending$/,
          /^issue 1 was confirmed \(its command exited 0\) but is neither queued nor has a session$/,
          /^app-5 \(working, issue 5\) has no terminal: tmux has no session app-5$/,
          /^app-5 \(working, issue 5\) has no worktree at /,
          /^branch feat\/7 is named by no session record$/,
          /^the uncommitted file notes\/app-9\.txt that the agent of app-9 \(issue 3\) wrote is lost/,
          /^q-1 \(issue 1\) left the queue with neither a queue\.admitted nor a queue\.dropped$/
        ]
        for (const pattern of expected) assert.isTrue(violations.some((v) => pattern.test(v)), `${pattern} in:\n${violations.join("\n")}`)
        assert.strictEqual(violations.length, expected.length, violations.join("\n"))
        // A batch-spawn cut short after it had accepted its batch (issue 1 was queued): issue 4 was dropped without a word.
        const cut = checkInvariants(world, { confirmed: new Set(), removedByScenario: new Set(), cutBatches: [["1", "4"]] })
        assert.deepStrictEqual(cut.filter((v) => v.includes("batch-spawn")), [
          "issue 1 of the batch-spawn the crash cut short (it had accepted 1, 4) is neither queued nor has a session, and nothing said why",
          "issue 4 of the batch-spawn the crash cut short (it had accepted 1, 4) is neither queued nor has a session, and nothing said why"
        ])

        // What `orch status` shows right after a crash: a spawn whose process is gone, shown as spawning.
        const gone = spawnSync("true").pid!
        const shown = [{ ...record, status: "spawning", spawn: { pid: gone, startedAt: record.createdAt } }, {
          ...record,
          sessionId: "app-6",
          spawn: { pid: process.pid }
        }]
        assert.deepStrictEqual(checkShownAfterCrash({ code: 0, stdout: JSON.stringify(shown), stderr: "" }), [
          `right after the crash, \`orch status\` shows app-5 (issue 5) as spawning, though its spawn's process ${gone} is gone`
        ])
      } finally {
        await world.close()
      }
    }), 30_000)
})
