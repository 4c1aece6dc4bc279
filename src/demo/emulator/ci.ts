/**
 * The emulator's CI: every new head commit gets one check run, `ci`, that GitHub-like goes queued →
 * in_progress → completed, with the verdict of the scenario's rule. The rule sees the commit's tree (its files
 * and their content), so a scenario can script a result by what is in the code, e.g. red only when two
 * changes are both in it. A check run always belongs to one commit; a new head is a new run.
 */
import { commitMessage, readAt, treeFiles } from "./git.ts"
import type { Jobs } from "./jobs.ts"
import { REQUIRED_CHECK } from "./merge-state.ts"

export type CheckConclusion = "success" | "failure"

/** What CI decides for a head commit: a conclusion, optionally with the output GitHub would show. */
export type CiVerdict = CheckConclusion | {
  readonly conclusion: CheckConclusion
  readonly title?: string
  readonly summary?: string
  /** The log excerpt (the check run's `output.text`). */
  readonly text?: string
}

/** The commit CI runs on, and its tree. */
export interface CiRun {
  readonly repo: string
  readonly branch: string
  readonly sha: string
  /** The head commit's message. */
  readonly message: string
  /** Every file path in the commit's tree (read from git when first asked). */
  readonly files: ReadonlyArray<string>
  /** A file's content in the commit, or undefined when it has no such file. */
  readonly read: (path: string) => string | undefined
}

/** Decides a check's verdict; a Promise keeps the run in progress until it settles. */
export type CiRule = (run: CiRun) => CiVerdict | Promise<CiVerdict>

export interface CheckRun {
  readonly id: number
  readonly name: string
  readonly head_sha: string
  readonly branch: string
  status: "queued" | "in_progress" | "completed"
  conclusion: CheckConclusion | null
  readonly started_at: string
  completed_at: string | null
  readonly html_url: string
  readonly details_url: string
  output: { title: string | null; summary: string | null; text: string | null }
}

export interface CiRepo {
  readonly fullName: string
  readonly gitDir: string
  readonly checks: Map<string, Array<CheckRun>>
}

export interface CiOptions<R extends CiRepo> {
  readonly rule?: CiRule
  /** How long a check run stays in progress at least; default 0 (it completes as soon as the rule decides). */
  readonly delayMs?: number
  readonly jobs: Jobs
  readonly nextId: () => number
  readonly htmlUrl: (repo: R, path: string) => string
  readonly emit: (event: string, repo: R, payload: Record<string, unknown>) => void
}

const treeOf = (gitDir: string, sha: string) => {
  let files: Array<string> | undefined
  return {
    get files() {
      return (files ??= treeFiles(gitDir, sha))
    },
    read: (path: string) => readAt(gitDir, sha, path)
  }
}

/** A rule that throws is a failed check whose log says so: the scenario's mistake shows, never hangs a run. */
const ruleFailed = (error: unknown): CiVerdict => ({
  conclusion: "failure",
  title: "The CI rule failed",
  summary: error instanceof Error ? error.message : String(error),
  text: error instanceof Error ? (error.stack ?? error.message) : String(error)
})

export const makeCi = <R extends CiRepo>(options: CiOptions<R>) => {
  const now = () => new Date().toISOString()

  const checkRunPayload = (run: CheckRun) => ({ ...run, check_suite: { head_branch: run.branch, head_sha: run.head_sha } })

  const complete = (repo: R, run: CheckRun, verdict: CiVerdict) => {
    const { conclusion, ...output } = typeof verdict === "string" ? { conclusion: verdict } : verdict
    run.status = "completed"
    run.conclusion = conclusion
    run.completed_at = now()
    run.output = conclusion === "success"
      ? { title: output.title ?? "All tests passed", summary: output.summary ?? "ok", text: output.text ?? "" }
      : output.title === undefined && output.summary === undefined && output.text === undefined
      ? {
        // A bare "failure": the demo's own failing test, so an agent has something to read.
        title: "1 test failed",
        summary: "test/app.test.ts: expected 2, got 3",
        text: "FAIL test/app.test.ts > adds\n  AssertionError: expected 2, got 3\n    at test/app.test.ts:4:20"
      }
      : { title: output.title ?? "1 test failed", summary: output.summary ?? "", text: output.text ?? "" }
    options.emit("check_run", repo, { action: "completed", check_run: checkRunPayload(run) })
    options.emit("check_suite", repo, {
      action: "completed",
      check_suite: { head_branch: run.branch, head_sha: run.head_sha, status: "completed", conclusion }
    })
  }

  /** CI on a commit: its run is created queued, starts at once and completes by the rule. Idempotent per commit. */
  const run = (repo: R, sha: string, branch: string): Array<CheckRun> => {
    const existing = repo.checks.get(sha)
    if (existing !== undefined) return existing
    const id = options.nextId()
    const check: CheckRun = {
      id,
      name: REQUIRED_CHECK,
      head_sha: sha,
      branch,
      status: "queued",
      conclusion: null,
      started_at: now(),
      completed_at: null,
      html_url: options.htmlUrl(repo, `runs/${id}`),
      details_url: options.htmlUrl(repo, `runs/${id}`),
      output: { title: null, summary: null, text: null }
    }
    repo.checks.set(sha, [check])
    options.emit("check_run", repo, { action: "created", check_run: checkRunPayload(check) })

    check.status = "in_progress"
    const input: CiRun = { repo: repo.fullName, branch, sha, message: commitMessage(repo.gitDir, sha), ...treeOf(repo.gitDir, sha) }
    let verdict: CiVerdict | Promise<CiVerdict>
    try {
      verdict = options.rule?.(input) ?? "success"
    } catch (error) {
      verdict = ruleFailed(error)
    }
    const delay = options.delayMs ?? 0
    if (delay <= 0 && !(verdict instanceof Promise)) {
      complete(repo, check, verdict)
      return [check]
    }
    const end = options.jobs.begin()
    const decided = Promise.resolve(verdict).catch(ruleFailed)
    const elapsed = new Promise<void>((resolve) => (delay <= 0 ? resolve() : options.jobs.after(delay, resolve)))
    void Promise.all([decided, elapsed]).then(([final]) => {
      if (options.jobs.open()) complete(repo, check, final)
      end()
    })
    return [check]
  }

  return { run }
}
