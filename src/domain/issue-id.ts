/**
 * The one rule for issue ids, used by `orch spawn`, `orch batch-spawn`, `orch queue add` and intake alike: what is
 * typed is trimmed and loses a leading `#`; what is left must be letters, digits, `.`, `_` or `-`, starting with a
 * letter or digit (42, ENG-123), and make a branch name git takes (`feat/<id>`: no `..`, not ending in `.` or
 * `.lock`, at most MAX_ISSUE_ID characters). A tracker may ask more of its own ids when it is asked about one.
 */
const ISSUE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
export const MAX_ISSUE_ID = 100

export const ISSUE_ID_EXPECTED =
  `letters, digits, ".", "_" or "-", starting with a letter or digit, as a branch name takes them (no "..", not ending in "." or ".lock", at most ${MAX_ISSUE_ID} characters; e.g. 42 or ENG-123)`

/** The id as orch keeps it: trimmed, without a leading `#`. */
export const normalIssueId = (typed: string): string => typed.trim().replace(/^#/, "")

/** Whether `typed` names an issue by the rule above. */
export const isIssueId = (typed: string): boolean => {
  const id = normalIssueId(typed)
  return ISSUE_ID.test(id) && id.length <= MAX_ISSUE_ID && !id.includes("..") && !id.endsWith(".") && !id.endsWith(".lock")
}

/** The first of `typed` that is not an issue id, if any. */
export const firstInvalidIssueId = (typed: ReadonlyArray<string>): string | undefined => typed.find((id) => !isIssueId(id))
