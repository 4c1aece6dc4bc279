/** A session's branch: the tracker's suggestion (Linear's `branchName`) when git can take it, else `feat/<issue>`. */
import type { Issue } from "../plugins/tracker/Tracker.ts"

/** A conservative subset of `git check-ref-format --branch`: plain characters, no empty or dot-led parts. Pure. */
export const isSafeBranchName = (name: string): boolean =>
  name.length > 0 &&
  name.length <= 200 &&
  /^[A-Za-z0-9._/-]+$/.test(name) &&
  !name.startsWith("-") &&
  name.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".") && !part.endsWith(".lock")) &&
  !name.includes("..")

export const sessionBranch = (issueId: string, issue: Pick<Issue, "branchName"> | undefined): string =>
  issue?.branchName !== undefined && isSafeBranchName(issue.branchName) ? issue.branchName : `feat/${issueId}`
