/** The emulator's REST routes: GitHub's v3 shapes for the subset orch uses (and the demo's agent calls). */
import { tryGit } from "./git.ts"
import type { Issue, Model, Review } from "./model.ts"

export interface Answer {
  readonly status: number
  readonly body?: unknown
}

const notFound: Answer = { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } }

const MERGE_DOCS = "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"
const UPDATE_BRANCH_DOCS = "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch"

/** A body field that must be a string when given: its value, or the 422 GitHub answers for another type. */
const optionalString = (body: Record<string, unknown>, field: string, docs: string): string | undefined | Answer => {
  const value = body[field]
  if (value === undefined || typeof value === "string") return value
  return { status: 422, body: { message: `Invalid request.\n\nFor 'properties/${field}', ${JSON.stringify(value)} is not a string.`, documentation_url: docs } }
}

export const restRoute = (model: Model, method: string, url: URL, body: Record<string, unknown>, baseUrl: string): Answer => {
  const match = /^\/repos\/([^/]+\/[^/]+)(\/.*)$/.exec(url.pathname)
  const repo = match ? model.repos.get(match[1]!) : undefined
  if (match === null || repo === undefined) return notFound
  const path = match[2]!
  let m: RegExpExecArray | null

  const issuePayload = (issue: Issue) => ({
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    state_reason: issue.state === "closed" ? (issue.stateReason ?? "COMPLETED").toLowerCase() : null,
    labels: issue.labels.map((name) => ({ name })),
    html_url: `${baseUrl}/${repo.fullName}/issues/${issue.number}`
  })
  if ((m = /^\/issues\/(\d+)$/.exec(path)) && method === "GET") {
    const issue = repo.issues.get(Number(m[1]))
    return issue ? { status: 200, body: issuePayload(issue) } : notFound
  }
  // GitHub's list: `state` (open, closed, all), `labels` (comma-separated; an issue must carry every one), newest first.
  if (path === "/issues" && method === "GET") {
    const state = url.searchParams.get("state") ?? "open"
    const labels = (url.searchParams.get("labels") ?? "").split(",").map((l) => l.trim()).filter(Boolean)
    const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? "30"))
    return {
      status: 200,
      body: [...repo.issues.values()]
        .filter((issue) => (state === "all" || issue.state === state) && labels.every((label) => issue.labels.includes(label)))
        .sort((a, b) => b.number - a.number)
        .slice(0, perPage)
        .map(issuePayload)
    }
  }
  if (path === "/pulls" && method === "GET") {
    const head = url.searchParams.get("head")?.split(":").at(-1)
    const state = url.searchParams.get("state") ?? "open"
    return {
      status: 200,
      body: [...repo.pulls.values()]
        .filter((p) => (head === undefined || p.head === head) && (state === "all" || p.state === state))
        .map((p) => model.pullPayload(repo, p))
    }
  }
  if (path === "/pulls" && method === "POST") {
    const head = String(body.head ?? "").split(":").at(-1)!
    const pull = model.openPull(repo, {
      head,
      base: String(body.base ?? "main"),
      title: String(body.title ?? head),
      body: String(body.body ?? ""),
      draft: body.draft === true
    })
    return pull === undefined
      ? { status: 422, body: { message: "Validation Failed", errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] } }
      : { status: 201, body: model.pullPayload(repo, pull) }
  }
  const pullMatch = /^\/pulls\/(\d+)(\/[a-z-]+)?$/.exec(path)
  const pull = pullMatch ? repo.pulls.get(Number(pullMatch[1])) : undefined
  if (pullMatch !== null && pull === undefined) return notFound
  if (pull !== undefined) {
    switch (`${method} ${pullMatch![2] ?? ""}`) {
      case "GET ":
        return { status: 200, body: model.pullPayload(repo, pull) }
      case "PATCH ": {
        const text = (key: string) => (typeof body[key] === "string" ? { [key]: body[key] as string } : {})
        const refused = model.editPull(repo, pull, { ...text("title"), ...text("body"), ...text("state") })
        return refused === undefined
          ? { status: 200, body: model.pullPayload(repo, pull) }
          : { status: refused.status, body: { message: refused.message, documentation_url: "https://docs.github.com/rest/pulls/pulls#update-a-pull-request" } }
      }
      case "GET /reviews":
        return { status: 200, body: repo.reviews.get(pull.number) ?? [] }
      case "POST /reviews": {
        const state: Review["state"] = body.event === "APPROVE" ? "APPROVED" : body.event === "REQUEST_CHANGES" ? "CHANGES_REQUESTED" : "COMMENTED"
        const comments = Array.isArray(body.comments) ? (body.comments as Array<{ path: string; line: number; body: string }>) : []
        return { status: 200, body: model.review(repo, pull, { state, body: String(body.body ?? ""), comments }) }
      }
      case "GET /comments":
        return { status: 200, body: (repo.threads.get(pull.number) ?? []).flatMap((thread) => thread.comments) }
      case "PUT /merge": {
        const sha = optionalString(body, "sha", MERGE_DOCS)
        if (typeof sha === "object") return sha
        const merged = model.merge(repo, pull, sha)
        return "status" in merged
          ? { status: merged.status, body: { message: merged.message, documentation_url: MERGE_DOCS } }
          : { status: 200, body: { sha: merged.sha, merged: true, message: "Pull Request successfully merged" } }
      }
      // GitHub answers 202 and updates the branch in the background; the emulator has moved it by the answer.
      case "PUT /update-branch": {
        const expected = optionalString(body, "expected_head_sha", UPDATE_BRANCH_DOCS)
        if (typeof expected === "object") return expected
        const updated = model.updateBranch(repo, pull, expected)
        return "status" in updated
          ? { status: updated.status, body: { message: updated.message, documentation_url: UPDATE_BRANCH_DOCS } }
          : { status: 202, body: { message: "Updating pull request branch.", url: model.pullApiUrl(repo, pull) } }
      }
    }
  }
  // GitHub's compare of two commits (`BASE...HEAD`): how far the head is ahead of and behind the base, and their merge base.
  if ((m = /^\/compare\/(.+)\.\.\.(.+)$/.exec(path)) && method === "GET") {
    const resolve = (ref: string) => tryGit(repo.gitDir, "rev-parse", "--verify", "--quiet", `${decodeURIComponent(ref)}^{commit}`)
    const [base, head] = [resolve(m[1]!), resolve(m[2]!)]
    if (base === undefined || head === undefined) return notFound
    const mergeBase = tryGit(repo.gitDir, "merge-base", base, head)
    const count = (range: string) => Number(tryGit(repo.gitDir, "rev-list", "--count", range) ?? "0")
    const [ahead, behind] = [count(`${base}..${head}`), count(`${head}..${base}`)]
    const status = ahead === 0 && behind === 0 ? "identical" : behind === 0 ? "ahead" : ahead === 0 ? "behind" : "diverged"
    return {
      status: 200,
      body: {
        status,
        ahead_by: ahead,
        behind_by: behind,
        total_commits: ahead,
        base_commit: { sha: base },
        merge_base_commit: mergeBase === undefined ? null : { sha: mergeBase }
      }
    }
  }
  if ((m = /^\/commits\/([^/]+)\/(check-runs|status)$/.exec(path)) && method === "GET") {
    const ref = decodeURIComponent(m[1]!)
    const sha = tryGit(repo.gitDir, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`)
    if (sha === undefined) return { status: 422, body: { message: `No commit found for SHA: ${ref}` } }
    if (m[2] === "status") {
      const statuses = repo.statuses.get(sha) ?? []
      const state = statuses.some((s) => s.state === "failure" || s.state === "error")
        ? "failure"
        : statuses.some((s) => s.state === "pending")
        ? "pending"
        : "success"
      return { status: 200, body: { state, sha, statuses, total_count: statuses.length } }
    }
    const branch = [...repo.pulls.values()].find((p) => model.headSha(repo, p.head) === sha)?.head ?? ref
    const runs = model.runCi(repo, sha, branch)
    return { status: 200, body: { total_count: runs.length, check_runs: runs.map(({ branch: _, ...run }) => run) } }
  }
  return notFound
}
