import { describe, expect, it } from "@effect/vitest"
import { apiFailure, codeOf } from "../../src/dashboard/api-failure.ts"
import { OpenFailed } from "../../src/dashboard/open.ts"
import { MergeRefused, SessionNotRunning } from "../../src/sessions/errors.ts"
import { SessionNotFound, StoreError } from "../../src/store/errors.ts"

describe("the API's failures: a status, a snake_case code and a sentence", () => {
  it.each(
    [
      ["SessionNotFound", "session_not_found"],
      ["MergeRefused", "merge_refused"],
      ["BadRequest", "bad_request"],
      ["DeliveryUnconfirmed", "delivery_unconfirmed"],
      ["HTTPError", "http_error"],
      ["unauthorized", "unauthorized"]
    ] as const
  )("%s → %s", (tag, code) => {
    expect(codeOf(tag)).toBe(code)
  })

  it.each(
    [
      ["no such session", new SessionNotFound({ sessionId: "nope" }), 404, "session_not_found"],
      ["not running", new SessionNotRunning({ sessionId: "app-1", state: "killed" }), 409, "session_not_running"],
      ["no opener", new OpenFailed({ target: "/x", reason: "no opener" }), 409, "open_failed"],
      ["the store failed", new StoreError({ path: "/x", reason: "disk full" }), 500, "store_error"]
    ] as const
  )("%s", (_name, error, status, code) => {
    const failure = apiFailure(error)
    expect({ status: failure.status, error: failure.error }).toEqual({ status, error: code })
    expect(failure.message).toBe(error.message)
  })

  it("a refusal keeps its own sentence", () => {
    const refused = new MergeRefused({ sessionId: "app-1", reason: "it has no pull request orch can merge" })
    expect(apiFailure(refused)).toEqual({ status: 409, error: "merge_refused", message: refused.message })
  })

  it("anything without a tag is the server's, still in words", () => {
    expect(apiFailure("boom")).toEqual({ status: 500, error: "internal_error", message: "the supervisor could not do this; its log (supervisor.log) says why" })
    expect(apiFailure(new Error("socket closed"))).toEqual({ status: 500, error: "internal_error", message: "socket closed" })
  })
})
