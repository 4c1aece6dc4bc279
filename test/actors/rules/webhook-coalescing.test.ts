import { assert, describe, it } from "@effect/vitest"
import { type LookAction, type LookEvent, type LookState, nextLook } from "../../../actors/rules/webhook-coalescing.ts"

/** The state after each event, and the actions taken along the way. */
const run = (events: ReadonlyArray<LookEvent>) => {
  let state: LookState | undefined
  const actions: Array<LookAction> = []
  for (const event of events) {
    const step = nextLook(state, event)
    state = step.state
    if (step.action !== "none") actions.push(step.action)
  }
  return { state, actions }
}

describe("webhook coalescing: one step", () => {
  it.each<[LookState | undefined, LookEvent, LookState | undefined, LookAction]>([
    [undefined, "delivery", "settling", "settle"],
    ["settling", "delivery", "settling", "none"],
    ["settling", "settled", "looking", "look"],
    ["looking", "delivery", "looking-then-again", "none"],
    ["looking-then-again", "delivery", "looking-then-again", "none"],
    ["looking", "look-ended", undefined, "none"],
    ["looking-then-again", "look-ended", "looking", "look"],
    ["settling", "stopped", undefined, "none"],
    ["looking-then-again", "stopped", undefined, "none"],
    [undefined, "look-ended", undefined, "none"],
    [undefined, "settled", undefined, "none"]
  ])("%s + %s → %s, %s", (state, event, next, action) => {
    assert.deepStrictEqual(nextLook(state, event), { state: next, action })
  })
})

describe("webhook coalescing: bursts", () => {
  it.each<[string, ReadonlyArray<LookEvent>, ReadonlyArray<LookAction>, LookState | undefined]>([
    ["a burst while settling is one look", ["delivery", "delivery", "delivery", "settled", "look-ended"], ["settle", "look"], undefined],
    ["deliveries during the look ask for one more, not one each", ["delivery", "settled", "delivery", "delivery", "look-ended", "look-ended"], [
      "settle",
      "look",
      "look"
    ], undefined],
    ["a delivery after the look ended starts afresh", ["delivery", "settled", "look-ended", "delivery"], ["settle", "look", "settle"], "settling"],
    ["a delivery during the second look asks for a third", ["delivery", "settled", "delivery", "look-ended", "delivery", "look-ended", "look-ended"], [
      "settle",
      "look",
      "look",
      "look"
    ], undefined]
  ])("%s", (_, events, actions, state) => {
    assert.deepStrictEqual(run(events), { state, actions: [...actions] })
  })
})
