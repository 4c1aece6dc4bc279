/**
 * Codex 0.169.0 (pinned): screens recorded from the real CLI in tmux with a local model provider, read by the
 * `codex` plugin. Only what was recorded is asserted: its approval prompt and a full turn were not (docs/agents.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { makeCodexAgent } from "../../src/plugins/agent/codex.ts"

const screen = (name: string) => readFileSync(join("test/fixtures/agents/codex-0.169.0", `${name}.txt`), "utf8")

describe("Codex 0.169.0: recorded screens", () => {
  const agent = makeCodexAgent({})
  it.each([
    ["ready", "ready", true],
    ["busy-reconnecting", "active", false],
    ["sign-in", "waiting_input", false]
  ] as const)("%s → %s", (name, activity, ready) => {
    expect(agent.activityFromScreen(screen(name))).toBe(activity)
    expect(agent.isReadyForInput(screen(name))).toBe(ready)
  })

  it("the sign-in screen stops a spawn at once with what to do", () => {
    expect(agent.startBlocker?.(screen("sign-in"))).toMatch(/codex login --with-api-key/)
    expect(agent.startBlocker?.(screen("ready"))).toBeUndefined()
  })
})
