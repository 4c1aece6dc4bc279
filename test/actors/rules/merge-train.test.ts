import { describe, expect, it } from "@effect/vitest"
import {
  afterMerge,
  afterTellRebase,
  afterUpdate,
  type Candidate,
  carsInOrder,
  decideHead,
  headCar,
  type MergeAnswer,
  type PullFacts,
  syncCars,
  UPDATE_PATIENCE_MS,
  type UpdateAnswer
} from "../../../actors/rules/merge-train.ts"
import { emptyTrain, type TrainCar, type TrainFile, type TrainStep } from "../../../src/domain/train.ts"

const AT = "2026-11-27T22:00:00.000Z"
const NOW = Date.parse(AT)
const HEAD = "a".repeat(40)
const NEW_HEAD = "b".repeat(40)
const BASE = "c".repeat(40)

const car = (n: number, step?: TrainStep, extra: Partial<TrainCar> = {}): TrainCar => ({
  sessionId: `app-${n}`,
  prNumber: n,
  branch: `feat/${n}`,
  priority: 0,
  joinedAt: AT,
  seq: n,
  ...(step !== undefined ? { step } : {}),
  ...extra
})
const train = (...cars: Array<TrainCar>): TrainFile => ({ ...emptyTrain("app"), next: cars.length + 1, cars })
const candidate = (n: number, extra: Partial<Candidate> = {}): Candidate => ({
  sessionId: `app-${n}`,
  prNumber: n,
  branch: `feat/${n}`,
  priority: 0,
  ready: true,
  prState: "open",
  approved: true,
  checksFailing: false,
  ...extra
})
const facts = (extra: Partial<PullFacts> = {}): PullFacts => ({
  state: "open",
  approved: true,
  head: HEAD,
  base: BASE,
  upToDate: true,
  checks: "passing",
  failingChecks: [],
  ...extra
})

describe("merge train: joining and leaving by the session records", () => {
  it("ready PRs join in the order they became ready, higher priority first", () => {
    const first = syncCars(train(), [candidate(1)], AT)
    const second = syncCars(first.file, [candidate(1), candidate(2), candidate(3, { priority: 5 })], AT)
    expect(carsInOrder(second.file).map((c) => c.sessionId)).toEqual(["app-3", "app-1", "app-2"])
    expect(second.events.map((e) => [e.type, e.sessionId, e.data?.position])).toEqual([["train.joined", "app-3", 1], ["train.joined", "app-2", 3]])
  })

  it("a head car with a step under way stays the head whatever joins", () => {
    const busy = train(car(1, { kind: "checking", head: HEAD, base: BASE }))
    const joined = syncCars(busy, [candidate(1, { ready: false }), candidate(2, { priority: 9 })], AT)
    expect(headCar(joined.file)?.sessionId).toBe("app-1")
    expect(joined.events.map((e) => e.type)).toEqual(["train.joined"])
  })

  it.each(
    [
      ["its session ended", undefined, "its session ended"],
      ["merged elsewhere", candidate(2, { prState: "merged" }), "its pull request was merged outside the train"],
      ["closed", candidate(2, { prState: "closed" }), "its pull request was closed outside the train"],
      ["a draft again", candidate(2, { prState: "draft" }), "its pull request became a draft"],
      ["approval gone", candidate(2, { approved: false, ready: false }), "it is no longer approved"],
      ["checks failed", candidate(2, { checksFailing: true, ready: false }), "its checks failed"]
    ] as const
  )("a waiting car leaves when %s", (_name, found, reason) => {
    const file = train(car(1, { kind: "checking", head: HEAD, base: BASE }), car(2))
    const synced = syncCars(file, [candidate(1), ...(found ? [found] : [])], AT)
    expect(synced.file.cars.map((c) => c.sessionId)).toEqual(["app-1"])
    expect(synced.events).toMatchObject([{ type: "train.left", sessionId: "app-2", data: { reason } }])
  })

  it("a car that left red joins again with a new head, even if it was never seen not ready", () => {
    const head = car(2, { kind: "checking", head: HEAD, base: BASE })
    const left = decideHead(train(head), head, facts({ checks: "failing" }), NOW, AT).file
    expect(syncCars(left, [candidate(2)], AT, new Map([["app-2", HEAD]])).file.cars).toEqual([])
    expect(syncCars(left, [candidate(2)], AT, new Map([["app-2", NEW_HEAD]])).file.cars.map((c) => c.sessionId)).toEqual(["app-2"])
  })

  it("a car that left joins again only after it was seen not ready", () => {
    const left = syncCars(train(car(2)), [candidate(2, { checksFailing: true })], AT).file
    expect(syncCars(left, [candidate(2)], AT).file.cars).toEqual([])
    const seenRed = syncCars(left, [candidate(2, { ready: false })], AT).file
    expect(seenRed.left).toEqual([])
    expect(syncCars(seenRed, [candidate(2)], AT).file.cars.map((c) => c.sessionId)).toEqual(["app-2"])
  })
})

describe("merge train: the head car", () => {
  const cases: ReadonlyArray<
    readonly [string, TrainStep | undefined, Partial<PullFacts>, string, TrainStep | "gone" | undefined, ReadonlyArray<string>, number?]
  > = [
    ["behind the default branch: update it", undefined, { upToDate: false }, "UpdateBranch", { kind: "updating", from: HEAD, base: BASE }, []],
    ["up to date, checks pending: wait for them", undefined, { checks: "pending" }, "None", { kind: "checking", head: HEAD, base: BASE }, []],
    ["up to date, no checks yet: wait", undefined, { checks: "none" }, "None", { kind: "checking", head: HEAD, base: BASE }, []],
    [
      "up to date and green: merge with the head pinned",
      { kind: "checking", head: HEAD, base: BASE },
      {},
      "Merge",
      { kind: "merging", head: HEAD, base: BASE },
      []
    ],
    ["up to date and red: leaves", { kind: "checking", head: HEAD, base: BASE }, { checks: "failing", failingChecks: [{ name: "ci" }] }, "None", "gone", [
      "train.left"
    ]],
    [
      "the default branch moved while checking: update again",
      { kind: "checking", head: HEAD, base: BASE },
      { upToDate: false, base: NEW_HEAD },
      "UpdateBranch",
      {
        kind: "updating",
        from: HEAD,
        base: NEW_HEAD
      },
      []
    ],
    ["merged by the train (a crash before the outcome)", { kind: "merging", head: HEAD, base: BASE }, { state: "merged" }, "None", "gone", ["train.merged"]],
    ["merged by the train, its branch since deleted", { kind: "merging", head: HEAD, base: BASE }, { state: "merged", head: "0".repeat(40) }, "None", "gone", [
      "train.merged"
    ]],
    ["merged by someone else", { kind: "checking", head: HEAD, base: BASE }, { state: "merged" }, "None", "gone", ["train.left"]],
    ["merging, not merged (a crash before the merge): merge again", { kind: "merging", head: HEAD, base: BASE }, {}, "Merge", {
      kind: "merging",
      head: HEAD,
      base: BASE
    }, []],
    ["closed", undefined, { state: "closed" }, "None", "gone", ["train.left"]],
    ["a draft", undefined, { state: "draft" }, "None", "gone", ["train.left"]],
    ["not approved any more", undefined, { approved: false }, "None", "gone", ["train.left"]],
    ["updating, a crash before the update: update again", { kind: "updating", from: HEAD, base: BASE }, { upToDate: false }, "UpdateBranch", {
      kind: "updating",
      from: HEAD,
      base: BASE
    }, []],
    ["updating, a crash after it: the new head says it happened", { kind: "updating", from: HEAD, base: BASE }, { head: NEW_HEAD, checks: "pending" }, "None", {
      kind: "checking",
      head: NEW_HEAD,
      base: BASE
    }, ["train.updated"]],
    [
      "updated, the new head not there yet: wait",
      { kind: "updated", from: HEAD, at: AT },
      { upToDate: false },
      "None",
      { kind: "updated", from: HEAD, at: AT },
      []
    ],
    [
      "updated, no new head for too long: update again",
      { kind: "updated", from: HEAD, at: AT },
      { upToDate: false },
      "UpdateBranch",
      {
        kind: "updating",
        from: HEAD,
        base: BASE
      },
      [],
      NOW + UPDATE_PATIENCE_MS
    ],
    ["updated, the new head is there", { kind: "updated", from: HEAD, at: AT }, { head: NEW_HEAD, checks: "pending" }, "None", {
      kind: "checking",
      head: NEW_HEAD,
      base: BASE
    }, []],
    ["rebasing, agent not told yet: tell it", { kind: "rebasing", from: HEAD, told: false }, { upToDate: false }, "TellRebase", {
      kind: "rebasing",
      from: HEAD,
      told: false
    }, []],
    ["rebasing, told: wait for a new head", { kind: "rebasing", from: HEAD, told: true }, { upToDate: false }, "None", {
      kind: "rebasing",
      from: HEAD,
      told: true
    }, []],
    ["rebasing, the agent pushed a rebased head", { kind: "rebasing", from: HEAD, told: true }, { head: NEW_HEAD, checks: "pending" }, "None", {
      kind: "checking",
      head: NEW_HEAD,
      base: BASE
    }, []]
  ]
  for (const [name, step, seen, action, nextStep, events, now = NOW] of cases) {
    it(name, () => {
      const head = car(1, step)
      const decision = decideHead(train(head, car(2)), head, facts(seen), now, AT)
      expect(decision.action._tag).toBe(action)
      const after = decision.file.cars.find((c) => c.sessionId === "app-1")
      if (nextStep === "gone") expect(after).toBeUndefined()
      else expect(after?.step).toEqual(nextStep)
      expect(decision.events.map((e) => e.type)).toEqual(events)
      expect(decision.file.cars.some((c) => c.sessionId === "app-2")).toBe(true)
    })
  }

  it("a look that succeeds ends the problem the last try had", () => {
    const head = car(1, { kind: "checking", head: HEAD, base: BASE }, { problem: "HTTP 502" })
    const decision = decideHead(train(head), head, facts({ checks: "pending" }), NOW, AT)
    expect(decision.file.cars[0]).toEqual(car(1, { kind: "checking", head: HEAD, base: BASE }))
  })

  it("a car that leaves red names the head and the base its checks ran on, and keeps that head from joining again", () => {
    const head = car(1, { kind: "checking", head: HEAD, base: BASE })
    const decision = decideHead(train(head), head, facts({ checks: "failing", failingChecks: [{ name: "ci" }] }), NOW, AT)
    expect(decision.events[0]).toMatchObject({
      type: "train.left",
      data: { head: HEAD, base: BASE, reason: "its checks failed on aaaaaaa, up to date with ccccccc (ci)" }
    })
    expect(decision.file.left).toEqual([{ sessionId: "app-1", head: HEAD, reason: expect.any(String), at: AT }])
  })
})

describe("merge train: outcomes", () => {
  const updating = car(1, { kind: "updating", from: HEAD, base: BASE })
  it.each(
    [
      ["202: waits for the new head", { _tag: "Updated" }, { kind: "updated", from: HEAD, at: AT }, ["train.updated"], undefined],
      ["no new commits: look again", { _tag: "AlreadyUpToDate" }, undefined, [], undefined],
      ["the head moved: look again", { _tag: "HeadMoved" }, undefined, [], undefined],
      ["a conflict: the agent is to rebase", { _tag: "Conflict" }, { kind: "rebasing", from: HEAD, told: false }, [], undefined],
      ["no answer: the step stays for the next look", { _tag: "Unknown", reason: "502" }, updating.step, [], "502"]
    ] as const
  )("update-branch %s", (_name, answer, step, events, problem) => {
    const decision = afterUpdate(train(updating), updating, answer as UpdateAnswer, AT)
    expect(decision.file.cars[0]?.step).toEqual(step)
    expect(decision.file.cars[0]?.problem).toBe(problem)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })

  const merging = car(1, { kind: "merging", head: HEAD, base: BASE })
  it.each(
    [
      ["merged: the car is done", { _tag: "Merged", sha: NEW_HEAD }, "gone", ["train.merged"]],
      ["refused (the head moved): look again", { _tag: "Refused", reason: "Head branch was modified" }, undefined, []],
      ["no answer: the next look at the PR says", { _tag: "Unknown", reason: "timeout" }, merging.step, []]
    ] as const
  )("merge %s", (_name, answer, step, events) => {
    const decision = afterMerge(train(merging), merging, answer as MergeAnswer, AT)
    if (step === "gone") expect(decision.file.cars).toEqual([])
    else expect(decision.file.cars[0]?.step).toEqual(step)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })

  it("train.merged says the head it merged and the base its checks ran on, not that it landed on that base", () => {
    const merged = afterMerge(train(merging), merging, { _tag: "Merged", sha: "d".repeat(40) }, AT).events[0]
    expect(merged?.message).toBe("PR #1 merged by the train at aaaaaaa, checked on ccccccc")
    expect(merged?.data).toEqual({ branch: "feat/1", head: HEAD, base: BASE, mergeCommit: "d".repeat(40) })
    const seenMerged = decideHead(train(merging), merging, facts({ state: "merged" }), NOW, AT).events[0]
    expect(seenMerged?.message).toBe("PR #1 merged by the train at aaaaaaa, checked on ccccccc")
  })

  it("a car that merged does not join again while its record still says mergeable", () => {
    const done = afterMerge(train(merging), merging, { _tag: "Merged" }, AT).file
    expect(syncCars(done, [candidate(1)], AT).file.cars).toEqual([])
    expect(syncCars(done, [candidate(1, { ready: false, prState: "merged" })], AT).file.left).toEqual([])
  })

  it("the agent told to rebase is not told again for that head", () => {
    const rebasing = car(1, { kind: "rebasing", from: HEAD, told: false })
    expect(afterTellRebase(train(rebasing), rebasing, undefined).file.cars[0]?.step).toEqual({ kind: "rebasing", from: HEAD, told: true })
    expect(afterTellRebase(train(rebasing), rebasing, "no terminal").file.cars[0]?.problem).toBe("no terminal")
  })
})
