/** What went wrong, in words, from any failure (a typed error, a defect, a string). */
import * as Cause from "effect/Cause"

export const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message || error.name : String(error)
}
