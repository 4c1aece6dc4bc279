import { describe, expect, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
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

  const bytes = (text: string) => new TextEncoder().encode(text)

  it("401 on a bad signature, 400 on a body that is not JSON, 404 for unknown repositories, replays ignored", () => {
    const seen = new Set<string>()
    const good = body({ pull_request: { head: { ref: "feat/1" } } })
    const headers = (b: string, delivery = "d1") => ({ event: "pull_request", delivery, signature: signature("s3cret", b) })
    expect(receive(projects, seen, { ...headers(good), signature: signature("wrong", good) }, bytes(good)).status).toBe(401)
    expect(receive(projects, seen, headers("{not json"), bytes("{not json")).status).toBe(400)
    const elsewhere = JSON.stringify({ repository: { full_name: "other/repo" } })
    expect(receive(projects, seen, headers(elsewhere), bytes(elsewhere))).toMatchObject({ status: 404, error: "unknown_repository" })
    expect(receive([], seen, headers(good), bytes(good))).toMatchObject({ status: 404, error: "not_enabled" })
    expect(receive(projects, seen, headers(good), bytes(good))).toEqual({ status: 202, repo: "acme/app", branch: "feat/1" })
    expect(receive(projects, seen, headers(good), bytes(good))).toEqual({ status: 200, message: "duplicate delivery, ignored" })
    expect(receive(projects, seen, headers(good, "d2"), bytes(good)).status).toBe(202)
  })

  // The signature is checked before anything of the body is read: whatever the body, a bad or missing one is 401.
  it.each(
    [
      ["a valid delivery", body({ pull_request: { head: { ref: "feat/1" } } })],
      ["a body that is not JSON", "{not json"],
      ["a delivery about another repository", JSON.stringify({ repository: { full_name: "other/repo" } })],
      ["an empty body", ""]
    ] as const
  )("401 for %s with a bad or missing signature", (_name, text) => {
    const seen = new Set<string>()
    for (const given of [undefined, signature("wrong", text), "sha256=", "garbage"]) {
      const outcome = receive(projects, seen, { event: "pull_request", delivery: "d1", ...(given !== undefined ? { signature: given } : {}) }, bytes(text))
      expect(outcome).toMatchObject({ status: 401, error: "bad_signature" })
    }
    expect(seen.size, "no delivery id is remembered for an unsigned delivery").toBe(0)
  })

  it("the HMAC is over the raw bytes: a body that is not UTF-8, signed, is 400; the same bytes re-encoded do not verify", () => {
    const raw = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])
    const signed = `sha256=${createHmac("sha256", "s3cret").update(raw).digest("hex")}`
    expect(receive(projects, new Set(), { signature: signed }, raw)).toMatchObject({ status: 400, error: "bad_body" })
    const reencoded = bytes(new TextDecoder().decode(raw))
    expect(receive(projects, new Set(), { signature: signed }, reencoded)).toMatchObject({ status: 401 })
  })

  it("a delivery signed with one project's secret about another project's repository is 401", () => {
    const two = [...projects, { repo: "acme/other", secret: "other-secret" }]
    const about = JSON.stringify({ repository: { full_name: "acme/other" }, ref: "refs/heads/feat/9" })
    expect(receive(two, new Set(), { event: "push", signature: signature("s3cret", about) }, bytes(about))).toMatchObject({
      status: 401,
      error: "bad_signature"
    })
    expect(receive(two, new Set(), { event: "push", signature: signature("other-secret", about) }, bytes(about))).toEqual({
      status: 202,
      repo: "acme/other",
      branch: "feat/9"
    })
  })
})
