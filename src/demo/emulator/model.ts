/**
 * The emulated repohost's state: per repository its issues, pull requests, CI check runs, commit statuses,
 * reviews and review threads, over a real bare git repository (a branch pushed there is a branch it serves).
 * A pull request's head and base are branches of that repository; whatever moves one (a push, a merge, a
 * branch update) runs CI on the new commit and changes what the pull request's merge state is. Every change is
 * announced through `emit` as a GitHub webhook event, which the server delivers.
 */
import { type CheckRun, type CiRule, makeCi } from "./ci.ts"
import { branchSha, commitTree, mergeTree, moveBranch, ZERO_SHA } from "./git.ts"
import { makeJobs } from "./jobs.ts"
import {
  graphqlMergeable,
  type MergeFacts,
  mergeRefusal,
  mergeStateStatus,
  type Refusal,
  REQUIRED_CHECK,
  restMergeable,
  rollUp,
  updateBranchRefusal
} from "./merge-state.ts"
import { makeMergeability } from "./mergeability.ts"

export type { CheckConclusion, CheckRun, CiRule, CiRun, CiVerdict } from "./ci.ts"
export { ZERO_SHA } from "./git.ts"

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
  title: string
  body: string
  readonly head: string
  readonly base: string
  state: "open" | "closed"
  merged: boolean
  mergeCommit: string | null
  readonly draft: boolean
  /** Set by a test to force the pull request (un)conflicted whatever git says; undefined: git decides. */
  forcedConflicts?: boolean | undefined
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
  /** The base branches' protection requires the `ci` check on a head that is up to date (GitHub's `strict`). */
  requireUpToDate: boolean
  next: number
}

export const now = () => new Date().toISOString()

export interface ModelOptions {
  readonly ci?: CiRule
  /** How long a check run stays in progress at least; default 0. */
  readonly ciDelayMs?: number
  /** Undefined: mergeability is computed when asked. A number: lazily, as on GitHub (see mergeability.ts). */
  readonly mergeabilityDelayMs?: number
  /** Announces a change as a webhook event (`x-github-event` name and payload). */
  readonly emit: (event: string, repo: Repo, payload: Record<string, unknown>) => void
  readonly baseUrl: () => string
}

export interface EmulatedRepo {
  readonly repo: string
  readonly gitDir: string
  readonly requireUpToDate?: boolean
}

export const makeModel = (repos: ReadonlyArray<EmulatedRepo>, options: ModelOptions) => {
  const state = new Map<string, Repo>(repos.map(({ repo, gitDir, requireUpToDate }) => [repo, {
    fullName: repo,
    gitDir,
    issues: new Map(),
    pulls: new Map(),
    reviews: new Map(),
    threads: new Map(),
    checks: new Map(),
    statuses: new Map(),
    requireUpToDate: requireUpToDate ?? false,
    next: 1
  }]))
  let ids = 1
  const nextId = () => ids++
  const jobs = makeJobs()
  const htmlUrl = (repo: Repo, path: string) => `${options.baseUrl()}/${repo.fullName}/${path}`
  const ci = makeCi<Repo>({
    ...(options.ci ? { rule: options.ci } : {}),
    ...(options.ciDelayMs !== undefined ? { delayMs: options.ciDelayMs } : {}),
    jobs,
    nextId,
    htmlUrl,
    emit: options.emit
  })
  const mergeability = makeMergeability({ delayMs: options.mergeabilityDelayMs, jobs })

  const headSha = (repo: Repo, branch: string) => branchSha(repo.gitDir, branch)
  const pullsWithHead = (repo: Repo, branch: string) => [...repo.pulls.values()].filter((pull) => pull.head === branch && pull.state === "open")

  const repoUrl = (repo: Repo) => `${options.baseUrl()}/${repo.fullName}`
  const pullUrl = (repo: Repo, pull: Pull) => htmlUrl(repo, `pull/${pull.number}`)
  const pullApiUrl = (repo: Repo, pull: Pull) => `${options.baseUrl()}/repos/${repo.fullName}/pulls/${pull.number}`

  /** What decides a pull request's merge state, with its mergeability as a read shows it (`of`) or fresh (`now`). */
  const mergeFacts = (repo: Repo, pull: Pull, how: "of" | "now" = "of"): MergeFacts & { readonly head: string; readonly base: string } => {
    const m = pull.state === "open" ? mergeability[how](repo.gitDir, pull) : undefined
    const head = m?.head ?? headSha(repo, pull.head) ?? ZERO_SHA
    const runs = repo.checks.get(head) ?? []
    return {
      open: pull.state === "open",
      draft: pull.draft,
      // A branch gone from the repository: GitHub cannot say either.
      conflicts: m === undefined ? null : m.conflicts,
      behind: m?.behind ?? false,
      requireUpToDate: repo.requireUpToDate,
      checks: rollUp(runs, repo.statuses.get(head) ?? []),
      required: rollUp(runs.filter((run) => run.name === REQUIRED_CHECK)),
      head,
      base: m?.base ?? headSha(repo, pull.base) ?? ZERO_SHA
    }
  }

  const pullPayload = (repo: Repo, pull: Pull) => {
    const facts = mergeFacts(repo, pull)
    return {
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      merged_at: pull.merged ? pull.createdAt : null,
      merge_commit_sha: pull.mergeCommit,
      mergeable: restMergeable(facts),
      mergeable_state: mergeStateStatus(facts).toLowerCase(),
      html_url: pullUrl(repo, pull),
      url: pullApiUrl(repo, pull),
      head: { ref: pull.head, sha: facts.head },
      base: { ref: pull.base, sha: facts.base },
      created_at: pull.createdAt
    }
  }

  /** What GraphQL shows of a pull request's merge state. */
  const pullMergeState = (repo: Repo, pull: Pull) => {
    const facts = mergeFacts(repo, pull)
    return { mergeable: graphqlMergeable(facts), mergeStateStatus: mergeStateStatus(facts) }
  }

  /**
   * A branch moved from `before` to `after` (a push, or the emulator's own merge or branch update): the push
   * webhook, `synchronize` for the pull requests it heads, and CI on the new commit.
   */
  const branchMoved = (repo: Repo, branch: string, before: string, after: string) => {
    const ref = `refs/heads/${branch}`
    options.emit("push", repo, { ref, before, after, deleted: after === ZERO_SHA, created: before === ZERO_SHA })
    if (after === ZERO_SHA) return
    for (const pull of pullsWithHead(repo, branch)) {
      options.emit("pull_request", repo, { action: "synchronize", number: pull.number, before, after, pull_request: pullPayload(repo, pull) })
    }
    ci.run(repo, after, branch)
  }

  /** A push arrived at the bare repository (`git push` ran its post-receive hook). */
  const pushed = (repo: Repo, updates: ReadonlyArray<{ readonly before: string; readonly after: string; readonly ref: string }>) => {
    for (const { before, after, ref } of updates) {
      if (ref.startsWith("refs/heads/")) branchMoved(repo, ref.slice("refs/heads/".length), before, after)
    }
  }

  const openPull = (
    repo: Repo,
    input: { readonly head: string; readonly base: string; readonly title: string; readonly body: string; readonly draft: boolean }
  ): Pull | undefined => {
    const sha = headSha(repo, input.head)
    if (sha === undefined) return undefined
    const pull: Pull = { number: repo.next++, ...input, state: "open", merged: false, mergeCommit: null, createdAt: now() }
    repo.pulls.set(pull.number, pull)
    options.emit("pull_request", repo, { action: "opened", number: pull.number, pull_request: pullPayload(repo, pull) })
    ci.run(repo, sha, pull.head)
    return pull
  }

  const review = (repo: Repo, pull: Pull, input: {
    readonly state: Review["state"]
    readonly body?: string
    readonly user?: Actor
    readonly comments?: ReadonlyArray<{ readonly path: string; readonly line: number; readonly body: string }>
  }) => {
    const user = input.user ?? { login: "reviewer", type: "User" }
    const id = nextId()
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
      const commentId = nextId()
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

  /** Facts computed now, or the refusal GitHub gives when a branch of the pull request is gone. */
  const freshFacts = (repo: Repo, pull: Pull, gone: Refusal) => {
    const facts = mergeFacts(repo, pull, "now")
    return facts.open && facts.conflicts === null ? gone : { ...facts, conflicts: facts.conflicts ?? false }
  }

  /**
   * Squash-merges in the bare repository itself (no clone, no push hook), as GitHub does server-side; `sha`,
   * when given, must be the head the caller saw. The base moves: its push webhook and CI on the new commit.
   */
  const merge = (repo: Repo, pull: Pull, sha?: string): { readonly sha: string } | Refusal => {
    const facts = freshFacts(repo, pull, { status: 405, message: "Pull Request is not mergeable" })
    if ("status" in facts) return facts
    const refusal = mergeRefusal(facts, facts.head, sha)
    if (refusal !== undefined) return refusal
    const merged = mergeTree(repo.gitDir, facts.base, facts.head)
    if (merged === "conflicts") return { status: 405, message: "Pull Request is not mergeable" }
    const commit = commitTree(repo.gitDir, merged.tree, [facts.base], `${pull.title} (#${pull.number})`)
    if (!moveBranch(repo.gitDir, pull.base, commit, facts.base)) return { status: 409, message: "Base branch was modified. Review and try the merge again." }
    pull.state = "closed"
    pull.merged = true
    pull.mergeCommit = commit
    // "Closes #N" in the PR's body closes the issue, as on GitHub.
    for (const match of pull.body.matchAll(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?) #(\d+)/gi)) {
      const issue = repo.issues.get(Number(match[1]))
      if (issue !== undefined && issue.state === "open") {
        issue.state = "closed"
        options.emit("issues", repo, { action: "closed", issue: { number: issue.number, title: issue.title, state: "closed" } })
      }
    }
    options.emit("pull_request", repo, { action: "closed", number: pull.number, pull_request: pullPayload(repo, pull) })
    branchMoved(repo, pull.base, facts.base, commit)
    return { sha: commit }
  }

  /**
   * `update-branch`: merges the base into the head with a merge commit, as GitHub does, and moves the head (a
   * push of the head: `synchronize`, and CI on the new head). `expectedHead`, when given, must be the head now.
   */
  const updateBranch = (repo: Repo, pull: Pull, expectedHead?: string): { readonly sha: string } | Refusal => {
    const facts = freshFacts(repo, pull, { status: 422, message: "The pull request's head or base branch no longer exists" })
    if ("status" in facts) return facts
    const refusal = updateBranchRefusal(facts, facts.head, expectedHead)
    if (refusal !== undefined) return refusal
    const merged = mergeTree(repo.gitDir, facts.head, facts.base)
    if (merged === "conflicts") return { status: 422, message: "merge conflict between base and head" }
    const commit = commitTree(repo.gitDir, merged.tree, [facts.head, facts.base], `Merge branch '${pull.base}' into ${pull.head}`)
    if (!moveBranch(repo.gitDir, pull.head, commit, facts.head)) return { status: 422, message: "expected head sha didn’t match current head ref." }
    branchMoved(repo, pull.head, facts.head, commit)
    return { sha: commit }
  }

  /**
   * GitHub's "update a pull request": its title, body, and state (`closed` without merging, `open` again unless it
   * merged), with the `pull_request` webhook `edited`, `closed` or `reopened`.
   */
  const editPull = (repo: Repo, pull: Pull, changes: { readonly title?: string; readonly body?: string; readonly state?: string }): Refusal | undefined => {
    if (changes.state !== undefined && changes.state !== "open" && changes.state !== "closed") {
      return { status: 422, message: `state must be "open" or "closed", not "${changes.state}"` }
    }
    if (changes.state === "open" && pull.merged) return { status: 422, message: "A merged pull request cannot be reopened" }
    if (changes.title !== undefined) pull.title = changes.title
    if (changes.body !== undefined) pull.body = changes.body
    const action = changes.state === undefined || changes.state === pull.state ? "edited" : changes.state === "closed" ? "closed" : "reopened"
    if (changes.state === "open" || changes.state === "closed") pull.state = changes.state
    options.emit("pull_request", repo, { action, number: pull.number, pull_request: pullPayload(repo, pull) })
    return undefined
  }

  return {
    repos: state,
    headSha,
    repoUrl,
    pullUrl,
    pullApiUrl,
    pullPayload,
    pullMergeState,
    runCi: ci.run,
    pushed,
    openPull,
    review,
    merge,
    updateBranch,
    editPull,
    nextId,
    idle: jobs.idle,
    close: jobs.close
  }
}

export type Model = ReturnType<typeof makeModel>
