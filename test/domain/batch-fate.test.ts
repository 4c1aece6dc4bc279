import { assert, describe, it } from "@effect/vitest"
import { batchFate, interruptedBatchSentence } from "../../src/domain/batch-fate.ts"

const spawned = (issueId: string, sessionId: string) => ({ type: "session.spawned", issueId, sessionId })

describe("what became of an interrupted batch (pure)", () => {
  it("started from the events since it asked, queued from the queue now, the rest neither", () => {
    const fate = batchFate(
      ["1", "2", "3", "4", "2"],
      [{ type: "queue.added", issueId: "1" }, spawned("1", "app-1"), { type: "session.spawn_failed", issueId: "2" }, spawned("9", "app-9")],
      [{ id: "q-2", issue: "2" }, { id: "q-3", issue: "3" }, { id: "q-8", issue: "8" }, { id: "q-t" }]
    )
    assert.deepStrictEqual(fate, {
      started: [{ issueId: "1", sessionId: "app-1" }],
      queued: [{ issueId: "2", entryId: "q-2" }, { issueId: "3", entryId: "q-3" }],
      neither: ["4"]
    })
  })

  it.each(
    [
      [
        "through a supervisor",
        { started: [{ issueId: "1", sessionId: "app-1" }], queued: [{ issueId: "2", entryId: "q-2" }, { issueId: "3", entryId: "q-3" }], neither: ["4"] },
        true,
        true,
        "batch-spawn interrupted: 1 started and runs (1 as app-1); 2 wait in the queue (2, 3) and start on their own while orch's supervisor runs; " +
        "`orch queue ls` shows them; 4 was neither started nor queued by it (`orch status` shows whether a session is on it)"
      ],
      [
        "with no supervisor, one queued",
        { started: [], queued: [{ issueId: "2", entryId: "q-2" }], neither: [] },
        false,
        true,
        "batch-spawn interrupted: 1 waits in the queue (2) and starts on its own once orch's supervisor runs (`orch start`); `orch queue ls` shows it"
      ],
      [
        "many started",
        { started: ["1", "2", "3", "4", "5", "6", "7"].map((n) => ({ issueId: n, sessionId: `app-${n}` })), queued: [], neither: [] },
        true,
        true,
        "batch-spawn interrupted: 7 started and run (1 as app-1, 2 as app-2, 3 as app-3, 4 as app-4, 5 as app-5 and 2 more)"
      ],
      [
        "before it was asked for",
        { started: [], queued: [], neither: ["1"] },
        true,
        false,
        "batch-spawn interrupted before the batch was asked for; nothing was started or queued"
      ]
    ] as const
  )("%s", (_name, fate, supervised, taken, sentence) => {
    assert.strictEqual(interruptedBatchSentence(fate, supervised, taken), sentence)
  })
})
