import { assert, describe, it } from "@effect/vitest"
import { groupedNotification, groupKey } from "../../../actors/rules/notification-groups.ts"
import type { Notification } from "../../../src/domain/notification.ts"

const note = (fields: Partial<Notification>): Notification => ({
  id: "n",
  type: "reaction.agent-exited",
  priority: "urgent",
  title: "app-1: agent exited",
  message: "its agent exited",
  timestamp: "2026-11-27T00:00:00.000Z",
  sessionId: "app-1",
  projectId: "app",
  ...fields
})
const hostDown = (title: string): Notification => {
  const { sessionId: _, ...rest } = note({ type: "host.down", title })
  return rest
}
const died = (n: number, projectId = "app") => note({ id: `d${n}`, title: `app-${n}: agent exited`, sessionId: `app-${n}`, projectId })

describe("groupedNotification", () => {
  const rows: ReadonlyArray<[string, ReadonlyArray<Notification>, Partial<Notification> | "none" | "first"]> = [
    ["nothing held: nothing to tell", [], "none"],
    ["one held: told as it is", [died(2)], "first"],
    ["two: their count and both sessions", [died(2), died(3)], {
      title: "2 more: agent exited",
      message: "app-2, app-3; orch status shows each.",
      projectId: "app"
    }],
    [
      "seven: the first five named, the rest counted",
      Array.from({ length: 7 }, (_, i) => died(i + 2)),
      { title: "7 more: agent exited", message: "app-2, app-3, app-4, app-5, app-6 and 2 more; orch status shows each." }
    ],
    ["two projects: no project named", [died(2), died(3, "web")], { title: "2 more: agent exited", message: "app-2, app-3; orch status shows each." }],
    [
      "no sessions (hosts down): named by their titles",
      [hostDown("host a is down"), hostDown("host b is down")],
      { title: "2 more: host.down (2 kinds)", message: "host a is down, host b is down; orch status shows each." }
    ]
  ]
  for (const [name, held, expected] of rows) {
    it(name, () => {
      const grouped = groupedNotification(held, "g", "2026-11-27T00:00:05.000Z")
      if (expected === "none") return assert.isUndefined(grouped)
      if (expected === "first") return assert.strictEqual(grouped, held[0])
      assert.deepInclude(grouped!, { id: "g", timestamp: "2026-11-27T00:00:05.000Z", type: held[0]!.type, priority: "urgent", ...expected })
      assert.strictEqual(grouped!.projectId, new Set(held.map((n) => n.projectId)).size === 1 ? "app" : undefined)
      assert.strictEqual((grouped!.data as { grouped: number }).grouped, held.length)
    })
  }

  it("groups by priority and kind", () => {
    assert.strictEqual(groupKey(died(1)), groupKey(died(2)))
    assert.notStrictEqual(groupKey(died(1)), groupKey(note({ priority: "action" })))
    assert.notStrictEqual(groupKey(died(1)), groupKey(note({ type: "session.stuck" })))
  })
})
