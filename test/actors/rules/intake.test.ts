import { describe, expect, it } from "@effect/vitest"
import { type IntakeFacts, intakeStep, priorityOf } from "../../../actors/rules/intake.ts"
import { entryLine, type QueueEntry } from "../../../src/domain/queue.ts"

const entry = (id: string, issue: string, by?: "intake"): QueueEntry => ({
  id,
  projectId: "app",
  issue,
  priority: 0,
  addedAt: "2026-11-26T00:00:00.000Z",
  seq: Number(id.slice(2)),
  ...(by !== undefined ? { by } : {})
})
const facts = (fields: Partial<IntakeFacts>): IntakeFacts => ({ open: [], queued: [], worked: new Set(), seen: new Set(), priorities: {}, ...fields })
const issue = (id: string, ...labels: Array<string>) => ({ id, labels: ["orch", ...labels] })

describe("intakeStep", () => {
  it.each<[string, IntakeFacts, ReturnType<typeof intakeStep>]>([
    ["new open issues are queued", facts({ open: [issue("3"), issue("1")] }), {
      add: [{ issue: "3", priority: 0 }, { issue: "1", priority: 0 }],
      drop: [],
      seen: ["1", "3"]
    }],
    ["each once: one seen before is not queued again (a person may have removed it)", facts({ open: [issue("3")], seen: new Set(["3"]) }), {
      add: [],
      drop: [],
      seen: ["3"]
    }],
    ["an issue a person queued already is left as it is", facts({ open: [issue("3")], queued: [entry("q-1", "3")] }), { add: [], drop: [], seen: ["3"] }],
    ["an issue a session works or worked is not queued", facts({ open: [issue("3")], worked: new Set(["3"]) }), { add: [], drop: [], seen: ["3"] }],
    [
      "an entry intake queued whose issue closed (or lost its label) is dropped; a person's is not",
      facts({
        open: [issue("4")],
        queued: [entry("q-1", "3", "intake"), entry("q-2", "5"), entry("q-3", "4", "intake")],
        seen: new Set(["3", "4"])
      }),
      { add: [], drop: [entry("q-1", "3", "intake")], seen: ["4"] }
    ],
    ["an issue that leaves and comes back (reopened) is queued again", facts({ open: [issue("3")], seen: new Set() }), {
      add: [{ issue: "3", priority: 0 }],
      drop: [],
      seen: ["3"]
    }],
    ["priorities from labels", facts({ open: [issue("7", "P1"), issue("8", "p0", "p1")], priorities: { p0: 10, p1: 5 } }), {
      add: [{ issue: "7", priority: 5 }, { issue: "8", priority: 10 }],
      drop: [],
      seen: ["7", "8"]
    }]
  ])("%s", (_, input, expected) => {
    expect(intakeStep(input)).toEqual(expected)
  })

  it("an issue's title travels with it into the queue", () => {
    expect(intakeStep(facts({ open: [{ id: "9", title: "Fix the login", labels: ["orch"] }] })).add).toEqual([{
      issue: "9",
      priority: 0,
      title: "Fix the login"
    }])
  })

  it("priorityOf: the highest of its labels', 0 with none", () => {
    expect(priorityOf(["bug"], { p0: 10 })).toBe(0)
    expect(priorityOf(["P0", "p2"], { p0: 10, p2: 1 })).toBe(10)
    expect(priorityOf([], {})).toBe(0)
  })
})

describe("how a queued entry reads", () => {
  const base = { id: "q-3", projectId: "app", priority: 0, addedAt: "2026-11-26T00:00:00.000Z", seq: 3, position: 1 }
  it.each<[string, Parameters<typeof entryLine>[0], string]>([
    ["an issue", { ...base, issue: "42" }, "1. q-3 app 42: waiting"],
    [
      "with its title and a priority",
      { ...base, issue: "42", title: "Fix the \"login\"", priority: 2 },
      "1. q-3 app 42 \"Fix the \\\"login\\\"\" (priority 2): waiting"
    ],
    ["a long title is cut", { ...base, issue: "42", title: "x".repeat(80) }, `1. q-3 app 42 "${"x".repeat(59)}…": waiting`],
    ["a task: its first line, quoted", { ...base, task: "Split the parser\ninto two" }, "1. q-3 app task \"Split the parser\": waiting"],
    [
      "a task whose first lines are empty, spaces collapsed",
      { ...base, task: "\n\n  Split   the parser  \nmore" },
      "1. q-3 app task \"Split the parser\": waiting"
    ],
    ["a long task is cut", { ...base, task: "y".repeat(80) }, `1. q-3 app task "${"y".repeat(59)}…": waiting`]
  ])("%s", (_, entry, expected) => expect(entryLine(entry, "waiting")).toBe(expected))
})
