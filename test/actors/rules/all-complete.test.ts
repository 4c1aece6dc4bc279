import { assert, describe, it } from "@effect/vitest"
import { allCompleteStep } from "../../../actors/rules/all-complete.ts"

describe("all-complete", () => {
  it.each<[string, boolean, number, boolean, boolean]>([
    ["the last live worker ended: fire", true, 0, true, false],
    ["workers still live: no", true, 2, false, true],
    ["none live before or now: no (fired already, or never had any)", false, 0, false, false],
    ["workers live again: no, but remembered", false, 1, false, true]
  ])("%s", (_, had, live, fire, next) => {
    assert.deepStrictEqual(allCompleteStep(had, live), { fire, hadLiveWorkers: next })
  })

  it("fires once per time the last worker ends", () => {
    let had = false
    const fired: Array<number> = []
    ;[1, 2, 0, 0, 0, 1, 0, 0].forEach((live, i) => {
      const step = allCompleteStep(had, live)
      had = step.hadLiveWorkers
      if (step.fire) fired.push(i)
    })
    assert.deepStrictEqual(fired, [2, 6])
  })
})
