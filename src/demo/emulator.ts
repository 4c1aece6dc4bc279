/**
 * A local stand-in for GitHub's REST API (the subset orch uses), backed by real git repositories on disk: a
 * branch pushed to the bare repository is a branch the emulator serves. Issues, pull requests, a CI that
 * runs on every new head commit (passing or failing by the rule the caller sets), reviews, merges (really
 * made in the bare repository), ETags with 304s, and rate-limit headers that only count 200s. Used by the
 * tests and by `orch demo`.
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export type CheckConclusion = "success" | "failure"

export interface EmulatedRepoOptions {
  /** owner/name */
  readonly repo: string
  /** The bare repository pushes go to (the project's `origin`). */
  readonly gitDir: string
}

export interface EmulatorOptions {
  readonly repos: ReadonlyArray<EmulatedRepoOptions>
  /** The result of CI for a head commit; default: success. `message` is the commit's message. */
  readonly ci?: (run: { readonly repo: string; readonly branch: string; readonly sha: string; readonly message: string }) => CheckConclusion
  readonly rateLimit?: number
}

interface Pull {
  number: number
  title: string
  body: string
  head: string
  base: string
  state: "open" | "closed"
  merged: boolean
  draft: boolean
  conflicts: boolean
  createdAt: string
}

interface Review {
  readonly id: number
  readonly user: { readonly login: string }
  readonly state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED"
  readonly body: string
  readonly submitted_at: string
  readonly commit_id: string
}

interface CheckRun {
  readonly id: number
  readonly name: string
  readonly head_sha: string
  readonly status: "completed"
  readonly conclusion: CheckConclusion
  readonly html_url: string
  readonly details_url: string
  readonly output: { readonly title: string; readonly summary: string; readonly text: string }
}

interface ReviewComment {
  readonly id: number
  readonly user: { readonly login: string }
  readonly body: string
  readonly path: string
  readonly line: number
  readonly html_url: string
}

interface RepoState {
  readonly options: EmulatedRepoOptions
  readonly comments: Map<number, Array<ReviewComment>>
  readonly issues: Map<number, { number: number; title: string; body: string; labels: Array<string>; state: "open" | "closed" }>
  readonly pulls: Map<number, Pull>
  readonly reviews: Map<number, Array<Review>>
  readonly checks: Map<string, Array<CheckRun>>
  next: number
}

export interface LoggedRequest {
  readonly method: string
  /** Path and query, as sent. */
  readonly url: string
  readonly body: unknown
}

export interface EmulatorStats {
  /** Requests answered with a body (they count against the rate limit). */
  counted: number
  /** Requests answered 304 Not Modified (free). */
  notModified: number
}

export interface Emulator {
  readonly url: string
  readonly stats: EmulatorStats
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<LoggedRequest>
  readonly addIssue: (repo: string, issue: { readonly title: string; readonly body?: string; readonly labels?: ReadonlyArray<string> }) => number
  /** A review; line comments come with it, as on GitHub. */
  readonly review: (
    repo: string,
    pull: number,
    state: Review["state"],
    body?: string,
    comments?: ReadonlyArray<{ readonly path: string; readonly line: number; readonly body: string }>
  ) => void
  readonly setConflicts: (repo: string, pull: number, conflicts: boolean) => void
  readonly pull: (repo: string, number: number) => Pull | undefined
  readonly close: () => Promise<void>
}

const git = (gitDir: string, ...args: Array<string>) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8" }).trim()
const tryGit = (gitDir: string, ...args: Array<string>) => {
  try {
    return git(gitDir, ...args)
  } catch {
    return undefined
  }
}

const NOW = () => new Date().toISOString()

export const startEmulator = (options: EmulatorOptions): Promise<Emulator> => {
  const repos = new Map<string, RepoState>(options.repos.map((repo) => [repo.repo, { options: repo, comments: new Map(), issues: new Map(), pulls: new Map(), reviews: new Map(), checks: new Map(), next: 1 }]))
  const stats: EmulatorStats = { counted: 0, notModified: 0 }
  const requests: Array<LoggedRequest> = []
  const limit = options.rateLimit ?? 5000
  let checkIds = 1
  let reviewIds = 1
  let base = ""

  const headSha = (repo: RepoState, branch: string) => tryGit(repo.options.gitDir, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`)

  /** CI "runs" the first time a head commit is looked at: one check, `ci`, completed by the rule. */
  const checksFor = (repo: RepoState, sha: string, branch: string): Array<CheckRun> => {
    let runs = repo.checks.get(sha)
    if (runs === undefined) {
      const message = tryGit(repo.options.gitDir, "log", "-1", "--format=%B", sha) ?? ""
      const conclusion = options.ci?.({ repo: repo.options.repo, branch, sha, message }) ?? "success"
      const id = checkIds++
      runs = [{
        id,
        name: "ci",
        head_sha: sha,
        status: "completed",
        conclusion,
        html_url: `${base}/${repo.options.repo}/runs/${id}`,
        details_url: `${base}/${repo.options.repo}/runs/${id}`,
        output: conclusion === "success"
          ? { title: "All tests passed", summary: "ok", text: "" }
          : { title: "1 test failed", summary: "test/app.test.ts: expected 2, got 3", text: "FAIL test/app.test.ts\n  expected 2, got 3" }
      }]
      repo.checks.set(sha, runs)
    }
    return runs
  }

  const pullJson = (repo: RepoState, pull: Pull) => {
    const sha = headSha(repo, pull.head) ?? "0000000000000000000000000000000000000000"
    return {
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      mergeable: pull.state === "open" ? !pull.conflicts : null,
      mergeable_state: pull.conflicts ? "dirty" : "clean",
      html_url: `${base}/${repo.options.repo}/pull/${pull.number}`,
      head: { ref: pull.head, sha },
      base: { ref: pull.base },
      created_at: pull.createdAt
    }
  }

  /** Squash-merges the PR's head into its base in the bare repository. */
  const merge = (repo: RepoState, pull: Pull) => {
    const work = mkdtempSync(join(tmpdir(), "orch-emulator-merge-"))
    try {
      execFileSync("git", ["clone", "-q", "--branch", pull.base, repo.options.gitDir, work])
      const run = (...args: Array<string>) => execFileSync("git", ["-C", work, "-c", "user.name=emulator", "-c", "user.email=emulator@localhost", ...args], { stdio: "ignore" })
      run("fetch", "-q", "origin", pull.head)
      run("merge", "--squash", "FETCH_HEAD")
      run("commit", "-q", "--allow-empty", "-m", `${pull.title} (#${pull.number})`)
      run("push", "-q", "origin", `HEAD:${pull.base}`)
      return git(repo.options.gitDir, "rev-parse", `refs/heads/${pull.base}`)
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }

  const handle = async (req: IncomingMessage, url: URL): Promise<{ status: number; body?: unknown }> => {
    const body = req.method === "GET" ? {} : await new Promise<Record<string, unknown>>((resolve) => {
      let data = ""
      req.on("data", (chunk) => (data += chunk))
      req.on("end", () => resolve(data ? JSON.parse(data) : {}))
    })
    requests.push({ method: req.method ?? "GET", url: req.url ?? "/", body: req.method === "GET" ? undefined : body })
    if (url.pathname === "/rate_limit") return { status: 200, body: { resources: { core: { limit, remaining: limit - stats.counted } } } }
    const match = /^\/repos\/([^/]+\/[^/]+)(\/.*)$/.exec(url.pathname)
    const repo = match ? repos.get(match[1]!) : undefined
    if (match === null || repo === undefined) return { status: 404, body: { message: "Not Found" } }
    const path = match[2]!
    let m: RegExpExecArray | null
    if ((m = /^\/issues\/(\d+)$/.exec(path)) && req.method === "GET") {
      const issue = repo.issues.get(Number(m[1]))
      return issue
        ? { status: 200, body: { ...issue, labels: issue.labels.map((name) => ({ name })), html_url: `${base}/${repo.options.repo}/issues/${issue.number}` } }
        : { status: 404, body: { message: "Not Found" } }
    }
    if (path === "/pulls" && req.method === "GET") {
      const head = url.searchParams.get("head")?.split(":").at(-1)
      const state = url.searchParams.get("state") ?? "open"
      return {
        status: 200,
        body: [...repo.pulls.values()].filter((p) => (head === undefined || p.head === head) && (state === "all" || p.state === state)).map((p) => pullJson(repo, p))
      }
    }
    if (path === "/pulls" && req.method === "POST") {
      const head = String(body.head ?? "").split(":").at(-1)!
      if (headSha(repo, head) === undefined) return { status: 422, body: { message: "Validation Failed", errors: [{ field: "head", code: "invalid" }] } }
      const number = repo.next++
      const pull: Pull = { number, title: String(body.title ?? head), body: String(body.body ?? ""), head, base: String(body.base ?? "main"), state: "open", merged: false, draft: body.draft === true, conflicts: false, createdAt: NOW() }
      repo.pulls.set(number, pull)
      return { status: 201, body: pullJson(repo, pull) }
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path)) && req.method === "GET") {
      const pull = repo.pulls.get(Number(m[1]))
      return pull ? { status: 200, body: pullJson(repo, pull) } : { status: 404, body: { message: "Not Found" } }
    }
    if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(path))) {
      const pull = repo.pulls.get(Number(m[1]))
      if (pull === undefined) return { status: 404, body: { message: "Not Found" } }
      if (req.method === "POST") {
        const state = body.event === "APPROVE" ? "APPROVED" : body.event === "REQUEST_CHANGES" ? "CHANGES_REQUESTED" : "COMMENTED"
        const comments = Array.isArray(body.comments) ? (body.comments as Array<{ path: string; line: number; body: string }>) : []
        emulator.review(repo.options.repo, pull.number, state, String(body.body ?? ""), comments)
        return { status: 200, body: repo.reviews.get(pull.number)!.at(-1) }
      }
      return { status: 200, body: repo.reviews.get(pull.number) ?? [] }
    }
    if ((m = /^\/pulls\/(\d+)\/comments$/.exec(path)) && req.method === "GET") {
      return repo.pulls.has(Number(m[1])) ? { status: 200, body: repo.comments.get(Number(m[1])) ?? [] } : { status: 404, body: { message: "Not Found" } }
    }
    if ((m = /^\/pulls\/(\d+)\/merge$/.exec(path)) && req.method === "PUT") {
      const pull = repo.pulls.get(Number(m[1]))
      if (pull === undefined) return { status: 404, body: { message: "Not Found" } }
      if (pull.state !== "open" || pull.conflicts) return { status: 405, body: { message: "Pull Request is not mergeable" } }
      const sha = merge(repo, pull)
      pull.state = "closed"
      pull.merged = true
      return { status: 200, body: { sha, merged: true, message: "Pull Request successfully merged" } }
    }
    if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(path)) && req.method === "GET") {
      const ref = decodeURIComponent(m[1]!)
      const sha = tryGit(repo.options.gitDir, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`)
      if (sha === undefined) return { status: 404, body: { message: "No commit found" } }
      const branch = [...repo.pulls.values()].find((p) => headSha(repo, p.head) === sha)?.head ?? ref
      const runs = checksFor(repo, sha, branch)
      return { status: 200, body: { total_count: runs.length, check_runs: runs } }
    }
    if ((m = /^\/commits\/([^/]+)\/status$/.exec(path)) && req.method === "GET") {
      return { status: 200, body: { state: "success", statuses: [], total_count: 0 } }
    }
    return { status: 404, body: { message: "Not Found" } }
  }

  const server: Server = createServer((req, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    // A spent budget answers like GitHub's primary rate limit: 403, nothing left, the reset time.
    const spent = stats.counted >= limit
      ? Promise.resolve({ status: 403, body: { message: "API rate limit exceeded" } })
      : undefined
    ;(spent ?? handle(req, url)).then(({ status, body }) => {
      const text = body === undefined ? "" : JSON.stringify(body)
      const etag = `W/"${createHash("sha1").update(text).digest("hex")}"`
      const fresh = req.method === "GET" && status === 200 && req.headers["if-none-match"] === etag
      if (fresh) stats.notModified++
      else if (status !== 403 || stats.counted < limit) stats.counted++
      res.writeHead(fresh ? 304 : status, {
        "content-type": "application/json; charset=utf-8",
        ...(req.method === "GET" && status === 200 ? { etag } : {}),
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": String(Math.max(0, limit - stats.counted)),
        "x-ratelimit-used": String(stats.counted),
        "x-ratelimit-resource": "core",
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600)
      })
      res.end(fresh ? undefined : text)
    }, (error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ message: String(error) }))
    })
  })

  const emulator: Emulator = {
    url: "",
    stats,
    requests,
    addIssue: (repo, issue) => {
      const state = repos.get(repo)!
      const number = state.next++
      state.issues.set(number, { number, title: issue.title, body: issue.body ?? "", labels: [...(issue.labels ?? [])], state: "open" })
      return number
    },
    review: (repo, pull, state, reviewBody = "", comments = []) => {
      const r = repos.get(repo)!
      const p = r.pulls.get(pull)!
      const list = r.reviews.get(pull) ?? []
      list.push({ id: reviewIds++, user: { login: "reviewer" }, state, body: reviewBody, submitted_at: NOW(), commit_id: headSha(r, p.head) ?? "" })
      r.reviews.set(pull, list)
      const lines = r.comments.get(pull) ?? []
      for (const comment of comments) {
        const id = reviewIds++
        lines.push({ id, user: { login: "reviewer" }, ...comment, html_url: `${base}/${repo}/pull/${pull}#discussion_r${id}` })
      }
      r.comments.set(pull, lines)
    },
    setConflicts: (repo, pull, conflicts) => {
      repos.get(repo)!.pulls.get(pull)!.conflicts = conflicts
    },
    pull: (repo, number) => repos.get(repo)?.pulls.get(number),
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }

  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve({ ...emulator, url: base })
    }))
}
