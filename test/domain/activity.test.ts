import { describe, expect, it } from "@effect/vitest"
import { activityOf, type ActivitySignal, parseSignal, reportLine, sourceOf } from "../../src/domain/activity.ts"

describe("activity signals", () => {
  it.each(
    [
      [{ event: "SessionStart" }, "ready"],
      [{ event: "UserPromptSubmit" }, "active"],
      [{ event: "PreToolUse", payload: { tool_name: "Bash" } }, "active"],
      [{ event: "PostToolUse" }, "active"],
      [{ event: "Notification", payload: { message: "Claude needs your permission to use Bash" } }, "waiting_input"],
      [{ event: "Notification", payload: { message: "Claude needs your permission", notification_type: "permission_prompt" } }, "waiting_input"],
      [{ event: "Notification", payload: { message: "Claude is waiting for your input", notification_type: "idle_prompt" } }, undefined],
      [{ event: "Notification", payload: { message: "Signed in", notification_type: "auth_success" } }, undefined],
      [{ event: "PermissionRequest", payload: { tool_name: "Bash" } }, "waiting_input"],
      [{ event: "Stop" }, "ready"],
      [{ activity: "blocked" }, "blocked"],
      [{ report: "active" }, "active"],
      [{ report: "waiting_input", note: "which database?" }, "waiting_input"],
      [{ report: "done" }, "ready"],
      [{ activity: "sleepy" }, undefined],
      [{ event: "SubagentStop" }, undefined],
      [{}, undefined]
    ] as const
  )("%j → %s", (signal, activity) => {
    const line: ActivitySignal | undefined = parseSignal(JSON.stringify(signal))
    expect(line === undefined ? undefined : activityOf(line)).toBe(activity)
  })

  it("parses lines and ignores garbage", () => {
    expect(parseSignal("{\"event\":\"Stop\",\"ts\":\"2026-01-01T00:00:00Z\"}")).toEqual({ event: "Stop", ts: "2026-01-01T00:00:00Z" })
    expect(parseSignal("not json")).toBeUndefined()
    expect(parseSignal("42")).toBeUndefined()
    expect(parseSignal("{\"report\":\"finished\"}"), "not a state orch report knows").toBeUndefined()
    expect(parseSignal("{\"ts\":5,\"event\":\"Stop\"}"), "a time that is not a string").toBeUndefined()
    expect(parseSignal("{\"report\":\"done\",\"note\":7}"), "a note that is not text").toBeUndefined()
  })

  it("orch report's line reads back as a report", () => {
    const line = reportLine("done", Date.parse("2026-01-01T00:00:00.250Z"), "PR #7 is open")
    expect(line).toBe("{\"ts\":\"2026-01-01T00:00:00.250Z\",\"report\":\"done\",\"note\":\"PR #7 is open\"}")
    const signal = parseSignal(line)!
    expect(sourceOf(signal)).toBe("report")
    expect(activityOf(signal)).toBe("ready")
    expect(sourceOf(parseSignal("{\"activity\":\"active\"}")!), "the older form is a report too").toBe("report")
    expect(sourceOf(parseSignal("{\"event\":\"Stop\"}")!)).toBe("hook")
  })
})
