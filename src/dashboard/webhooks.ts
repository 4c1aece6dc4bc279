/**
 * Repohost webhooks (`POST /webhooks/repohost`): GitHub-style deliveries, signed with HMAC-SHA256 in
 * `x-hub-signature-256` by the secret in the project's `scm.webhookSecret` (write it as `${VAR}`). A bad
 * signature is 401, a body that is not JSON 400, a delivery id seen before is acknowledged and ignored. A good
 * delivery names a repository and a branch; the supervisor looks at that branch's PR at once, so changes land
 * in seconds instead of at the next poll.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

export interface WebhookProject {
  readonly repo: string
  readonly secret: string
}

export const signature = (secret: string, body: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const verifySignature = (secret: string, body: string, header: string | undefined): boolean => {
  if (header === undefined) return false
  const expected = Buffer.from(signature(secret, body))
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** The repository and branch a delivery is about, for the events orch cares about. */
export const branchOf = (event: string, payload: Record<string, any>): { readonly repo: string; readonly branch: string } | undefined => {
  const repo = payload.repository?.full_name
  if (typeof repo !== "string") return undefined
  const branch: unknown =
    event === "pull_request" || event === "pull_request_review" || event === "pull_request_review_comment"
      ? payload.pull_request?.head?.ref
      : event === "check_run"
      ? payload.check_run?.check_suite?.head_branch
      : event === "check_suite"
      ? payload.check_suite?.head_branch
      : event === "push"
      ? String(payload.ref ?? "").replace(/^refs\/heads\//, "")
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
  let payload: Record<string, any>
  try {
    payload = JSON.parse(body)
  } catch {
    return { status: 400, message: "the body is not JSON" }
  }
  const project = projects.find((p) => p.repo === payload?.repository?.full_name)
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
