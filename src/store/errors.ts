import * as Schema from "effect/Schema"

/** The data directory could not be read or written. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot use ${this.path}: ${this.reason}`
  }
}

export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String
}) {
  override get message() {
    return `no session ${this.sessionId}`
  }
}

export const errnoReason = (cause: unknown): string => {
  const error = cause as NodeJS.ErrnoException
  return error?.code !== undefined ? `${error.code}${error.message ? ` (${error.message.replace(/^[A-Z]+: /, "")})` : ""}` : String(cause)
}
