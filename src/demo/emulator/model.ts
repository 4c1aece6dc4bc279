/**
 * The emulated repohost's state: per repository its issues, pull requests, CI check runs, commit statuses,
 * reviews and review threads, over a real bare git repository (a branch pushed there is a branch it serves).
 * Every change is announced through `emit` as a GitHub webhook event, which the server delivers.
 */
import { execFileSync } from "node:child_process"

export type CheckConclusion = "success" | "failure"

/** What CI decides for a head commit: a conclusion, optionally with the output GitHub would show. */
export type CiVerdict = CheckConclusion | {
  readonly conclusion: CheckConclusion
  readonly title?: string
  readonly summary?: string
  /** The log excerpt (the check run's `output.text`). */
  readonly text?: string
}

export interface CiRun {
  readonly repo: string
  readonly branch: string
  readonly sha: string
  /** The head commit's message. */
  readonly message: string
}

export interface Actor {
  readonly login: string
  readonly type: "User" | "Bot"
}

export interface Issue {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly labels: Array<string>
  state: "open" | "closed"
  stateReason?: "COMPLETED" | "NOT_PLANNED"
}

export interface Pull {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly head: string
  readonly base: string
  state: "open" | "closed"
  merged: boolean
  mergeCommit: string | null
  readonly draft: boolean
  conflicts: boolean
  readonly createdAt: string
}

export interface Review {
  readonly id: number
  readonly user: Actor
  readonly state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED"
  readonly body: string
  readonly submitted_at: string
  readonly commit_id: string
  readonly html_url: string
}

export interface ReviewComment {
  readonly id: number
  readonly user: Actor
  readonly body: string
  readonly path: string
  readonly line: number
  readonly html_url: string
}

export interface Thread {
  readonly id: number
  readonly path: string
  readonly line: number
  resolved: boolean
  readonly comments: Array<ReviewComment>
}

export interface CheckRun {
  readonly id: number
  readonly name: string
  readonly head_sha: string
  readonly branch: string
  status: "in_progress" | "completed"
  conclusion: CheckConclusion | null
  readonly started_at: string
  completed_at: string | null
  readonly html_url: string
  readonly details_url: string
  output: { title: string | null; summary: string | null; text: string | null }
}

export interface CommitStatus {
  readonly context: string
  readonly state: "success" | "failure" | "pending" | "error"
  readonly target_url: string | null
  readonly description: string | null
}

export interface Repo {
  readonly fullName: string
  readonly gitDir: string
  readonly issues: Map<number, Issue>
  readonly pulls: Map<number, Pull>
  readonly reviews: Map<number, Array<Review>>
  readonly threads: Map<number, Array<Thread>>
  readonly checks: Map<string, Array<CheckRun>>
  readonly statuses: Map<string, Array<CommitStatus>>
  next: number
}

export const ZERO_SHA = "0000000000000000000000000000000000000000"

const git = (gitDir: string, ...args: Array<string>) =>
  execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
export const tryGit = (gitDir: string, ...args: Array<string>): string | undefined => {
  try {
    return git(gitDir, ...args)
  } catch {
    return undefined
  }
}

export const now = () => new Date().toISOString()

export interface ModelOptions {
  readonly ci?: (run: CiRun) => CiVerdict
  /** How long a check run stays in progress before it completes; default 0 (at once). */
  readonly ciDelayMs?: number
  /** Announces a change as a webhook event (`x-github-event` name and payload). */
  readonly emit: (event: string, repo: Repo, payload: Record<string, unknown>) => void
  readonly baseUrl: () => string
}

export const makeModel = (repos: ReadonlyArray<{ readonly repo: string; readonly gitDir: string }>, options: ModelOptions) => {
  const state = new Map<string, Repo>(repos.map(({ repo, gitDir }) => [repo, {
    fullName: repo,
    gitDir,
    issues: new Map(),
    pulls: new Map(),
    reviews: new Map(),
    threads: new Map(),
    checks: new Map(),
    statuses: new Map(),
    next: 1
  }]))
  let ids = 1
  const timers = new Set<NodeJS.Timeout>()
  const htmlUrl = (repo: Repo, path: string) => `${options.baseUrl()}/${repo.fullName}/${path}`

  const headSha = (repo: Repo, branch: string) => tryGit(repo.gitDir, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`)
  const pullsWithHead = (repo: Repo, branch: string) => [...repo.pulls.values()].filter((pull) => pull.head === branch && pull.state === "open")

  const repoUrl = (repo: Repo) => `${options.baseUrl()}/${repo.fullName}`
  const pullUrl = (repo: Repo, pull: Pull) => htmlUrl(repo, `pull/${pull.number}`)
  const pullPayload = (repo: Repo, pull: Pull) => {
    const sha = headSha(repo, pull.head) ?? ZERO_SHA
    return {
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      merged_at: pull.merged ? pull.createdAt : null,
      merge_commit_sha: pull.mergeCommit,
      mergeable: pull.state === "open" ? !pull.conflicts : null,
      mergeable_state: pull.conflicts ? "dirty" : "clean",
      html_url: pullUrl(repo, pull),
      url: `${options.baseUrl()}/repos/${repo.fullName}/pulls/${pull.number}`,
      head: { ref: pull.head, sha },
      base: { ref: pull.base },
      created_at: pull.createdAt
    }
  }

  const complete = (repo: Repo, run: CheckRun, verdict: CiVerdict) => {
    const { conclusion, ...output } = typeof verdict === "string" ? { conclusion: verdict } : verdict
    run.status = "completed"
    run.conclusion = conclusion
    run.completed_at = now()
    run.output = conclusion === "success"
      ? { title: output.title ?? "All tests passed", summary: output.summary ?? "ok", text: output.text ?? "" }
      : {
        title: output.title ?? "1 test failed",
        summary: output.summary ?? "test/app.test.ts: expected 2, got 3",
        text: output.text ?? "FAIL test/app.test.ts > adds\n  AssertionError: expected 2, got 3\n    at test/app.test.ts:4:20"
      }
    const payload = { action: "completed", check_run: { ...run, check_suite: { head_branch: run.branch, head_sha: run.head_sha } } }
    options.emit("check_run", repo, payload)
    options.emit("check_suite", repo, {
      action: "completed",
      check_suite: { head_branch: run.branch, head_sha: run.head_sha, status: "completed", conclusion }
    })
  }

  /** CI on a head commit: one check, `ci`, that completes by the rule after `ciDelayMs`. Idempotent per commit. */
  const runCi = (repo: Repo, sha: string, branch: string): Array<CheckRun> => {
    const existing = repo.checks.get(sha)
    if (existing !== undefined) return existing
    const id = ids++
    const run: CheckRun = {
      id,
      name: "ci",
      head_sha: sha,
      branch,
      status: "in_progress",
      conclusion: null,
      started_at: now(),
      completed_at: null,
      html_url: htmlUrl(repo, `runs/${id}`),
      details_url: htmlUrl(repo, `runs/${id}`),
      output: { title: null, summary: null, text: null }
    }
    repo.checks.set(sha, [run])
    const verdict = options.ci?.({ repo: repo.fullName, branch, sha, message: tryGit(repo.gitDir, "log", "-1", "--format=%B", sha) ?? "" }) ?? "success"
    const delay = options.ciDelayMs ?? 0
    if (delay <= 0) complete(repo, run, verdict)
    else {
      const timer = setTimeout(() => {
        timers.delete(timer)
        complete(repo, run, verdict)
      }, delay)
      timers.add(timer)
    }
    return [run]
  }

  /** A push arrived at the bare repository (`git push` ran its post-receive hook). */
  const pushed = (repo: Repo, updates: ReadonlyArray<{ readonly before: string; readonly after: string; readonly ref: string }>) => {
    for (const { before, after, ref } of updates) {
      if (!ref.startsWith("refs/heads/")) continue
      const branch = ref.slice("refs/heads/".length)
      options.emit("push", repo, { ref, before, after, deleted: after === ZERO_SHA, created: before === ZERO_SHA })
      if (after === ZERO_SHA) continue
      runCi(repo, after, branch)
      for (const pull of pullsWithHead(repo, branch)) {
        options.emit("pull_request", repo, { action: "synchronize", number: pull.number, pull_request: pullPayload(repo, pull) })
      }
    }
  }

  const openPull = (
    repo: Repo,
    input: { readonly head: string; readonly base: string; readonly title: string; readonly body: string; readonly draft: boolean }
  ): Pull | undefined => {
    const sha = headSha(repo, input.head)
    if (sha === undefined) return undefined
    const pull: Pull = { number: repo.next++, ...input, state: "open", merged: false, mergeCommit: null, conflicts: false, createdAt: now() }
    repo.pulls.set(pull.number, pull)
    options.emit("pull_request", repo, { action: "opened", number: pull.number, pull_request: pullPayload(repo, pull) })
    runCi(repo, sha, pull.head)
    return pull
  }

  const review = (repo: Repo, pull: Pull, input: {
    readonly state: Review["state"]
    readonly body?: string
    readonly user?: Actor
    readonly comments?: ReadonlyArray<{ readonly path: string; readonly line: number; readonly body: string }>
  }) => {
    const user = input.user ?? { login: "reviewer", type: "User" }
    const id = ids++
    const entry: Review = {
      id,
      user,
      state: input.state,
      body: input.body ?? "",
      submitted_at: now(),
      commit_id: headSha(repo, pull.head) ?? ZERO_SHA,
      html_url: htmlUrl(repo, `pull/${pull.number}#pullrequestreview-${id}`)
    }
    repo.reviews.set(pull.number, [...(repo.reviews.get(pull.number) ?? []), entry])
    const threads = repo.threads.get(pull.number) ?? []
    for (const comment of input.comments ?? []) {
      const commentId = ids++
      threads.push({
        id: commentId,
        path: comment.path,
        line: comment.line,
        resolved: false,
        comments: [{ id: commentId, user, ...comment, html_url: htmlUrl(repo, `pull/${pull.number}#discussion_r${commentId}`) }]
      })
    }
    repo.threads.set(pull.number, threads)
    options.emit("pull_request_review", repo, {
      action: "submitted",
      review: { ...entry, state: entry.state.toLowerCase() },
      pull_request: pullPayload(repo, pull)
    })
    return entry
  }

  /** Squash-merges in the bare repository itself (no clone, no push hook), as GitHub does server-side. */
  const merge = (repo: Repo, pull: Pull): { readonly sha: string } | { readonly error: string } => {
    if (pull.state !== "open") return { error: "Pull Request is not open" }
    const base = headSha(repo, pull.base)
    const head = headSha(repo, pull.head)
    if (pull.conflicts || base === undefined || head === undefined) return { error: "Pull Request is not mergeable" }
    const tree = tryGit(repo.gitDir, "merge-tree", "--write-tree", base, head)
    if (tree === undefined) return { error: "Pull Request is not mergeable" }
    const sha = git(
      repo.gitDir,
      "-c",
      "user.name=emulator",
      "-c",
      "user.email=emulator@localhost",
      "commit-tree",
      tree.split("\n")[0]!,
      "-p",
      base,
      "-m",
      `${pull.title} (#${pull.number})`
    )
    git(repo.gitDir, "update-ref", `refs/heads/${pull.base}`, sha, base)
    pull.state = "closed"
    pull.merged = true
    pull.mergeCommit = sha
    // "Closes #N" in the PR's body closes the issue, as on GitHub.
    for (const match of pull.body.matchAll(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?) #(\d+)/gi)) {
      const issue = repo.issues.get(Number(match[1]))
      if (issue !== undefined && issue.state === "open") {
        issue.state = "closed"
        options.emit("issues", repo, { action: "closed", issue: { number: issue.number, title: issue.title, state: "closed" } })
      }
    }
    options.emit("pull_request", repo, { action: "closed", number: pull.number, pull_request: pullPayload(repo, pull) })
    return { sha }
  }

  return {
    repos: state,
    headSha,
    repoUrl,
    pullUrl,
    pullPayload,
    runCi,
    pushed,
    openPull,
    review,
    merge,
    nextId: () => ids++,
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    }
  }
}

export type Model = ReturnType<typeof makeModel>
