import { describe, expect, it } from "@effect/vitest"
import { branchOf, receive, signature, verifySignature } from "../../src/dashboard/webhooks.ts"

const projects = [{ repo: "acme/app", secret: "s3cret" }]
const body = (payload: object) => JSON.stringify({ repository: { full_name: "acme/app" }, ...payload })

describe("repohost webhooks", () => {
  it("signs like GitHub (its documented example)", () => {
    expect(signature("It's a Secret to Everybody", "Hello, World!")).toBe("sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
    expect(verifySignature("s3cret", "x", signature("s3cret", "x"))).toBe(true)
    expect(verifySignature("s3cret", "x", signature("other", "x"))).toBe(false)
    expect(verifySignature("s3cret", "x", undefined)).toBe(false)
    expect(verifySignature("s3cret", "x", "sha256=short")).toBe(false)
  })

  it.each(
    [
      ["pull_request", { pull_request: { head: { ref: "feat/1" } } }, "feat/1"],
      ["pull_request_review", { pull_request: { head: { ref: "feat/2" } } }, "feat/2"],
      ["check_run", { check_run: { check_suite: { head_branch: "feat/3" } } }, "feat/3"],
      ["check_suite", { check_suite: { head_branch: "feat/4" } }, "feat/4"],
      ["push", { ref: "refs/heads/feat/5" }, "feat/5"],
      ["status", { branches: [{ name: "feat/6" }] }, "feat/6"],
      ["issues", { issue: {} }, undefined]
    ] as const
  )("%s → %s", (event, payload, branch) => {
    expect(branchOf(event, JSON.parse(body(payload)))?.branch).toBe(branch)
  })

  it("401 on a bad signature, 400 on a body that is not JSON, 404 for unknown repositories, replays ignored", () => {
    const seen = new Set<string>()
    const good = body({ pull_request: { head: { ref: "feat/1" } } })
    const headers = (b: string, delivery = "d1") => ({ event: "pull_request", delivery, signature: signature("s3cret", b) })
    expect(receive(projects, seen, { ...headers(good), signature: signature("wrong", good) }, good).status).toBe(401)
    expect(receive(projects, seen, headers("{not json"), "{not json").status).toBe(400)
    const elsewhere = JSON.stringify({ repository: { full_name: "other/repo" } })
    expect(receive(projects, seen, headers(elsewhere), elsewhere).status).toBe(404)
    expect(receive([], seen, headers(good), good).status).toBe(404)
    expect(receive(projects, seen, headers(good), good)).toEqual({ status: 202, repo: "acme/app", branch: "feat/1" })
    expect(receive(projects, seen, headers(good), good)).toEqual({ status: 200, message: "duplicate delivery, ignored" })
    expect(receive(projects, seen, headers(good, "d2"), good).status).toBe(202)
  })
})
