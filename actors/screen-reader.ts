/**
 * What the agent plugin reads off a session's screen, for agents that can be read that way and whose hooks are
 * silent. The screen is captured again only when the terminal may have printed something since the last capture
 * (every time when the runtime cannot tell). tmux tells output time to the second, taken as the end of that second:
 * a capture within the second of the last output is not trusted to have seen all of it. A capture that fails tells
 * nothing this cycle (and is tried again next cycle): the probe's liveness stands.
 */
import * as Effect from "effect/Effect"
import type { SessionRecord } from "../src/domain/session.ts"
import type { ProjectSlots } from "../src/plugins/ProjectPlugins.ts"
import { hooksSpeak, LIMIT_LOOK_AFTER_MS } from "./rules/activity-rule.ts"
import { limitShown, type ScreenReading } from "./rules/limit-reading.ts"
import type { SessionReading } from "./session-actors.ts"

export const readScreen = Effect.fnUntraced(
  function*(record: SessionRecord, reading: SessionReading, owner: ProjectSlots, lastOutputAt: number | undefined, now: number) {
    if (!owner.agent.readsScreen || hooksSpeak(reading.word, now, LIMIT_LOOK_AFTER_MS)) return {}
    if (reading.screen !== undefined && lastOutputAt !== undefined && lastOutputAt < reading.screen.capturedAt) return reading.screen.reading
    const captured = yield* Effect.option(owner.runtime.capture(record.runtime!))
    if (captured._tag === "None") return {}
    const activity = owner.agent.activityFromScreen(captured.value)
    const read: ScreenReading = {
      ...(activity !== undefined ? { screen: activity } : {}),
      ...(activity === "rate_limited" ? limitShown(record, owner.agent, captured.value, now) : {})
    }
    reading.screen = { capturedAt: now, reading: read }
    return read
  }
)
