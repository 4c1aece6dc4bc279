import { describe, expect, it } from "@effect/vitest"
import {
  graphqlMergeable,
  type MergeFacts,
  mergeRefusal,
  mergeStateStatus,
  restMergeable,
  rollUp,
  updateBranchRefusal
} from "../../src/demo/emulator/merge-state.ts"

const facts = (overrides: Partial<MergeFacts> = {}): MergeFacts & { conflicts: boolean } => ({
  open: true,
  draft: false,
  conflicts: false,
  behind: false,
  requireUpToDate: false,
  checks: "success",
  required: "success",
  ...overrides
} as MergeFacts & { conflicts: boolean })

const HEAD = "a".repeat(40)

describe("the emulator's merge state, as GitHub decides it", () => {
  it.each<[string, Partial<MergeFacts>, string]>([
    ["up to date and green", {}, "CLEAN"],
    ["no checks at all", { checks: "none", required: "none" }, "CLEAN"],
    ["behind, branches need not be up to date", { behind: true }, "CLEAN"],
    ["behind, branches must be up to date", { behind: true, requireUpToDate: true }, "BEHIND"],
    ["behind and conflicting", { behind: true, conflicts: true, requireUpToDate: true }, "DIRTY"],
    ["mergeability still being computed", { conflicts: null }, "UNKNOWN"],
    ["closed", { open: false }, "UNKNOWN"],
    ["a draft", { draft: true }, "DRAFT"],
    ["checks failing, not required", { checks: "failure", required: "failure" }, "UNSTABLE"],
    ["checks pending, not required", { checks: "pending", required: "pending" }, "UNSTABLE"],
    ["a commit status failing beside a green CI", { checks: "failure" }, "UNSTABLE"],
    ["required CI failing", { requireUpToDate: true, checks: "failure", required: "failure" }, "BLOCKED"],
    ["required CI not reported yet", { requireUpToDate: true, checks: "none", required: "none" }, "BLOCKED"],
    ["up to date and green where required", { requireUpToDate: true }, "CLEAN"]
  ])("%s → %s", (_, overrides, expected) => {
    expect(mergeStateStatus(facts(overrides))).toBe(expected)
  })

  it.each<[Partial<MergeFacts>, boolean | null, string]>([
    [{}, true, "MERGEABLE"],
    [{ conflicts: true }, false, "CONFLICTING"],
    [{ conflicts: null }, null, "UNKNOWN"],
    [{ open: false }, null, "UNKNOWN"]
  ])("mergeable of %j: REST %s, GraphQL %s", (overrides, rest, graphql) => {
    expect(restMergeable(facts(overrides))).toBe(rest)
    expect(graphqlMergeable(facts(overrides))).toBe(graphql)
  })

  it.each<[string, Partial<MergeFacts>, string | undefined, { status: number; message: string } | undefined]>([
    ["an open, clean PR merges", {}, undefined, undefined],
    ["the head the caller saw merges", {}, HEAD, undefined],
    ["a behind head merges where branches need not be up to date", { behind: true }, undefined, undefined],
    ["closed", { open: false }, undefined, { status: 405, message: "Pull Request is not mergeable" }],
    ["another head than the caller saw", {}, "b".repeat(40), { status: 409, message: "Head branch was modified. Review and try the merge again." }],
    ["a draft", { draft: true }, undefined, { status: 405, message: "Pull Request is still a draft" }],
    ["conflicting", { conflicts: true }, undefined, { status: 405, message: "Pull Request is not mergeable" }],
    ["behind where it must be up to date", { behind: true, requireUpToDate: true }, undefined, {
      status: 405,
      message: "Head branch is not up to date with the base branch."
    }],
    ["required CI failing", { requireUpToDate: true, required: "failure" }, undefined, { status: 405, message: "Required status check \"ci\" is failing." }],
    ["required CI still running", { requireUpToDate: true, required: "pending" }, undefined, {
      status: 405,
      message: "Required status check \"ci\" is expected."
    }]
  ])("merge: %s", (_, overrides, expected, refusal) => {
    expect(mergeRefusal(facts(overrides), HEAD, expected)).toEqual(refusal)
  })

  it.each<[string, Partial<MergeFacts>, string | undefined, { status: number; message: string } | undefined]>([
    ["a behind head is updated", { behind: true }, undefined, undefined],
    ["the head the caller saw is updated", { behind: true }, HEAD, undefined],
    ["whether branches must be up to date does not matter", { behind: true, requireUpToDate: true }, undefined, undefined],
    ["a head with every base commit", {}, undefined, { status: 422, message: "There are no new commits on the base branch." }],
    ["another head than the caller saw", { behind: true }, "b".repeat(40), { status: 422, message: "expected head sha didn’t match current head ref." }],
    ["conflicting", { behind: true, conflicts: true }, undefined, { status: 422, message: "merge conflict between base and head" }],
    ["closed", { open: false, behind: true }, undefined, { status: 422, message: "Pull request is closed" }]
  ])("update-branch: %s", (_, overrides, expected, refusal) => {
    expect(updateBranchRefusal(facts(overrides), HEAD, expected)).toEqual(refusal)
  })

  it.each<[string, ReadonlyArray<{ status: string; conclusion: string | null }>, ReadonlyArray<{ state: string }>, string]>([
    ["nothing reported", [], [], "none"],
    ["a queued run", [{ status: "queued", conclusion: null }], [], "pending"],
    ["a run in progress", [{ status: "in_progress", conclusion: null }], [], "pending"],
    ["a green run", [{ status: "completed", conclusion: "success" }], [], "success"],
    ["a red run beside one in progress", [{ status: "completed", conclusion: "failure" }, { status: "in_progress", conclusion: null }], [], "failure"],
    ["a green run and a failing status", [{ status: "completed", conclusion: "success" }], [{ state: "error" }], "failure"],
    ["a green run and a pending status", [{ status: "completed", conclusion: "success" }], [{ state: "pending" }], "pending"]
  ])("checks roll up: %s → %s", (_, runs, statuses, expected) => {
    expect(rollUp(runs, statuses)).toBe(expected)
  })
})
