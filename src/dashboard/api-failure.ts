/**
 * How the dashboard's API answers a failure: a status, a code and a sentence. The code is one snake_case word
 * scripts can branch on (`session_not_found`, `unauthorized`), the same shape for every failure the API gives; the
 * message is for people. Pure.
 */

export interface ApiFailure {
  readonly status: number
  /** snake_case, stable for scripts. */
  readonly error: string
  /** One sentence for people. */
  readonly message: string
}

/** The failures a person can do something about, by their tag; anything else is the server's problem (500). */
const STATUS_BY_TAG: Readonly<Record<string, number>> = {
  BadRequest: 400,
  SessionNotFound: 404,
  SessionNotRunning: 409,
  SessionRunning: 409,
  MergeRefused: 409,
  DeliveryUnconfirmed: 409,
  OpenFailed: 409
}

/** `SessionNotFound` → `session_not_found`. */
export const codeOf = (tag: string): string =>
  tag.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").replace(/[^A-Za-z0-9]+/g, "_").toLowerCase()

/** A failed action or read, as the API answers it: 400 a bad body, 404 no such session, 409 a refusal, else 500. */
export const apiFailure = (error: unknown): ApiFailure => {
  const tag = typeof (error as { _tag?: unknown } | null)?._tag === "string" ? (error as { _tag: string })._tag : undefined
  const said = (error as { message?: unknown } | null)?.message
  const message = typeof said === "string" && said.trim() !== "" ? said : "the supervisor could not do this; its log (supervisor.log) says why"
  if (tag === undefined) return { status: 500, error: "internal_error", message }
  return { status: STATUS_BY_TAG[tag] ?? 500, error: codeOf(tag), message }
}
