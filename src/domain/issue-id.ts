/**
 * The one rule for issue ids, used by `orch spawn`, `orch batch-spawn`, `orch queue add` and intake alike: what is
 * typed is trimmed and loses a leading `#`; what is left must be letters, digits, `.`, `_` or `-`, starting with a
 * letter or digit (42, ENG-123). A tracker may ask more of its own ids when it is asked about one.
 */
const ISSUE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

export const ISSUE_ID_EXPECTED = "letters, digits, \".\", \"_\" or \"-\" (e.g. 42 or ENG-123)"

/** The id as orch keeps it: trimmed, without a leading `#`. */
export const normalIssueId = (typed: string): string => typed.trim().replace(/^#/, "")

/** Whether `typed` names an issue by the rule above. */
export const isIssueId = (typed: string): boolean => ISSUE_ID.test(normalIssueId(typed))

/** The first of `typed` that is not an issue id, if any. */
export const firstInvalidIssueId = (typed: ReadonlyArray<string>): string | undefined => typed.find((id) => !isIssueId(id))
