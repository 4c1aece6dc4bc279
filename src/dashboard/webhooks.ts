/**
 * Repohost webhooks (`POST /webhooks/repohost`): GitHub-style deliveries, signed with HMAC-SHA256 in
 * `x-hub-signature-256` by the secret in the project's `scm.webhookSecret` (write it as `${VAR}`). The signature
 * is checked over the raw bytes before anything of the body is read: a missing or bad one is 401 whatever the
 * body, then a body that is not JSON is 400, and a delivery id seen before is acknowledged and ignored. A good
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
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The body as text, or undefined when it is not UTF-8 (so not JSON). */
const textOf = (body: Uint8Array): string | undefined => {
  try {
    return utf8.decode(body)
  } catch {
    return undefined
  }
}

export interface WebhookProject {
  readonly repo: string
  readonly secret: string
}

/** The `x-hub-signature-256` of `body` (its raw bytes; a string is taken as UTF-8) under `secret`. */
export const signature = (secret: string, body: string | Uint8Array): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const verifySignature = (secret: string, body: string | Uint8Array, header: string | undefined): boolean => {
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
  | { readonly status: 200; readonly message: string }
  | { readonly status: 400 | 401 | 404; readonly error: string; readonly message: string }

const refused = (status: 400 | 401 | 404, error: string, message: string): WebhookOutcome => ({ status, error, message })

/**
 * Decides what a delivery is; `seen` remembers delivery ids (bounded). Pure but for `seen`. The signature comes
 * first: only a delivery signed with a configured secret is read at all, and it must be about a repository whose
 * project has that secret.
 */
export const receive = (
  projects: ReadonlyArray<WebhookProject>,
  seen: Set<string>,
  headers: { readonly event?: string; readonly delivery?: string; readonly signature?: string },
  body: Uint8Array
): WebhookOutcome => {
  if (projects.length === 0) return refused(404, "not_enabled", "no project has scm.webhookSecret set, so orch takes no webhooks")
  if (headers.signature === undefined) {
    return refused(401, "bad_signature", "the delivery has no x-hub-signature-256 header: sign it with the project's scm.webhookSecret")
  }
  const signers = projects.filter((project) => verifySignature(project.secret, body, headers.signature))
  if (signers.length === 0) {
    return refused(401, "bad_signature", "the x-hub-signature-256 header does not match the body under any project's scm.webhookSecret")
  }
  const text = textOf(body)
  const decoded = text === undefined ? Option.none() : decodePayload(text)
  if (Option.isNone(decoded)) return refused(400, "bad_body", "the body is not a JSON delivery orch can read")
  const payload = decoded.value
  const repo = payload.repository?.full_name
  if (!signers.some((p) => p.repo === repo)) {
    return projects.some((p) => p.repo === repo)
      ? refused(401, "bad_signature", `the delivery is signed with another project's secret, not ${repo}'s`)
      : refused(404, "unknown_repository", `no project here is for the repository ${repo ?? "(none named)"}`)
  }
  if (headers.delivery !== undefined) {
    if (seen.has(headers.delivery)) return { status: 200, message: "duplicate delivery, ignored" }
    seen.add(headers.delivery)
    if (seen.size > 10_000) seen.delete(seen.values().next().value!)
  }
  const target = branchOf(headers.event ?? "", payload)
  return target === undefined ? { status: 200, message: "nothing orch follows" } : { status: 202, ...target }
}
