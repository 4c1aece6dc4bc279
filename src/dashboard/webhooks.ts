/**
 * Repohost webhooks (`POST /webhooks/repohost`): GitHub-style deliveries, signed with HMAC-SHA256 in
 * `x-hub-signature-256` by the secret in the project's `scm.webhookSecret` (write it as `${VAR}`). A bad
 * signature is 401, a body that is not JSON 400, a delivery id seen before is acknowledged and ignored. A good
 * delivery names a repository and a branch; the supervisor looks at that branch's PR at once, so changes land
 * in seconds instead of at the next poll.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHmac, timingSafeEqual } from "node:crypto"

const Branch = Schema.optionalKey(Schema.NullOr(Schema.String))

/** What orch reads of a delivery: its repository, and where each event it follows names the branch. */
export const WebhookPayload = Schema.Struct({
  repository: Schema.optionalKey(Schema.Struct({ full_name: Schema.String })),
  pull_request: Schema.optionalKey(Schema.Struct({ head: Schema.Struct({ ref: Schema.String }) })),
  check_run: Schema.optionalKey(Schema.Struct({ check_suite: Schema.Struct({ head_branch: Branch }) })),
  check_suite: Schema.optionalKey(Schema.Struct({ head_branch: Branch })),
  ref: Schema.optionalKey(Schema.String),
  branches: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String })))
})
export type WebhookPayload = typeof WebhookPayload.Type
const decodePayload = Schema.decodeUnknownOption(Schema.fromJsonString(WebhookPayload))

export interface WebhookProject {
  readonly repo: string
  readonly secret: string
}

export const signature = (secret: string, body: string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const verifySignature = (secret: string, body: string, header: string | undefined): boolean => {
  if (header === undefined) return false
  const expected = Buffer.from(signature(secret, body))
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** The repository and branch a delivery is about, for the events orch cares about. */
export const branchOf = (event: string, payload: WebhookPayload): { readonly repo: string; readonly branch: string } | undefined => {
  const repo = payload.repository?.full_name
  if (repo === undefined) return undefined
  const branch = event === "pull_request" || event === "pull_request_review" || event === "pull_request_review_comment"
    ? payload.pull_request?.head?.ref
    : event === "check_run"
    ? payload.check_run?.check_suite?.head_branch
    : event === "check_suite"
    ? payload.check_suite?.head_branch
    : event === "push"
    ? payload.ref?.replace(/^refs\/heads\//, "")
    : event === "status"
    ? payload.branches?.[0]?.name
    : undefined
  return typeof branch === "string" && branch !== "" ? { repo, branch } : undefined
}

export type WebhookOutcome =
  | { readonly status: 202; readonly repo: string; readonly branch: string }
  | { readonly status: 200 | 400 | 401 | 404; readonly message: string }

/** Decides what a delivery is; `seen` remembers delivery ids (bounded). Pure but for `seen`. */
export const receive = (
  projects: ReadonlyArray<WebhookProject>,
  seen: Set<string>,
  headers: { readonly event?: string; readonly delivery?: string; readonly signature?: string },
  body: string
): WebhookOutcome => {
  if (projects.length === 0) return { status: 404, message: "no project has scm.webhookSecret set" }
  const decoded = decodePayload(body)
  if (Option.isNone(decoded)) return { status: 400, message: "the body is not a JSON delivery orch can read" }
  const payload = decoded.value
  const project = projects.find((p) => p.repo === payload.repository?.full_name)
  if (project === undefined) return { status: 404, message: "no project for this repository" }
  if (!verifySignature(project.secret, body, headers.signature)) return { status: 401, message: "bad signature" }
  if (headers.delivery !== undefined) {
    if (seen.has(headers.delivery)) return { status: 200, message: "duplicate delivery, ignored" }
    seen.add(headers.delivery)
    if (seen.size > 10_000) seen.delete(seen.values().next().value!)
  }
  const target = branchOf(headers.event ?? "", payload)
  return target === undefined ? { status: 200, message: "nothing orch follows" } : { status: 202, ...target }
}
