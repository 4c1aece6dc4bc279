import { assert, describe, it } from "@effect/vitest"
import { batchSummary, type OutcomeLine } from "../../src/domain/batch-summary.ts"

const LOAD = "waiting for load on this machine to fall: 9.1, at most 8.0"
const queued = (issueId: string, reason = LOAD): OutcomeLine => ({ _tag: "Queued", issueId, entryId: `q-${issueId}`, position: 1, reason })
const skipped: OutcomeLine = { _tag: "Skipped", issueId: "9", sessionId: "app-9" }
const WHEN = "they start on their own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows them and why they wait."
const WHEN_ONE = "it starts on its own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows it and why it waits."
const created: OutcomeLine = {
  _tag: "Created",
  issueId: "4",
  record: { sessionId: "app-4", branch: "feat/4" },
  warnings: []
}

describe("batch-spawn's summary (pure)", () => {
  it.each([
    ["nothing queued: the counts alone", [skipped], ["created 0, skipped 1, failed 0"]],
    [
      "all queued under load: says plainly that nothing started, why, and what happens next",
      [queued("1"), queued("2")],
      ["created 0, skipped 0, failed 0, queued 2", `Nothing started now: both wait in the queue (${LOAD}); ${WHEN}`]
    ],
    ["one issue queued", [queued("1")], [
      "created 0, skipped 0, failed 0, queued 1",
      `Nothing started now: the issue waits in the queue (${LOAD}); ${WHEN_ONE}`
    ]],
    [
      "one of several queued",
      [created, queued("1")],
      ["created 1, skipped 0, failed 0, queued 1", `1 of them did not start now and waits in the queue (${LOAD}); ${WHEN_ONE}`]
    ],
    [
      "two of several queued",
      [created, queued("1"), queued("2")],
      ["created 1, skipped 0, failed 0, queued 2", `2 of them did not start now and wait in the queue (${LOAD}); ${WHEN}`]
    ],
    [
      "some started, some queued for different reasons",
      [{ _tag: "Failed", issueId: "3", reason: "x" }, queued("1"), queued("2", "maxSessions 2 reached")],
      ["created 0, skipped 0, failed 1, queued 2", `Nothing started now: both wait in the queue (${LOAD}, and other reasons); ${WHEN}`]
    ]
  ] as ReadonlyArray<readonly [string, ReadonlyArray<OutcomeLine>, ReadonlyArray<string>]>)("%s", (_name, outcomes, lines) => {
    assert.deepStrictEqual(batchSummary(outcomes), lines)
  })
})
