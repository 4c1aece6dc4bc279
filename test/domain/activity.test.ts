import { describe, expect, it } from "@effect/vitest"
import { activityOf, parseSignal, type ActivitySignal } from "../../src/domain/activity.ts"

describe("activity signals", () => {
  it.each([
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
    [{ activity: "sleepy" }, undefined],
    [{ event: "SubagentStop" }, undefined],
    [{}, undefined]
  ] as const)("%j → %s", (signal, activity) => {
    expect(activityOf(signal as ActivitySignal)).toBe(activity)
  })

  it("parses lines and ignores garbage", () => {
    expect(parseSignal("{\"event\":\"Stop\",\"ts\":\"2026-01-01T00:00:00Z\"}")).toEqual({ event: "Stop", ts: "2026-01-01T00:00:00Z" })
    expect(parseSignal("not json")).toBeUndefined()
    expect(parseSignal("42")).toBeUndefined()
  })
})
