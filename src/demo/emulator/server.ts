/**
 * A local stand-in for GitHub (the REST v3 and GraphQL v4 subset orch uses), backed by real git repositories on
 * disk: issues, pull requests with a merge state that follows their branches (behind, conflicting, computed
 * with git), a CI that runs on every new head commit (passing or failing by the caller's rule over the commit's
 * tree), commit statuses, reviews and review threads, real squash merges and branch updates, ETags with 304s,
 * rate limits per resource (`core` and `graphql`, counted as GitHub counts them), webhook deliveries with
 * signatures, and injected failures. Used by the tests, the benchmarks and `orch demo`.
 */
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type Delivery, type Hook, makeDeliveries } from "./deliveries.ts"
import { makeGraphql } from "./graphql.ts"
import { rollUp } from "./merge-state.ts"
import { type Actor, type CiRule, type CommitStatus, makeModel, type Pull, type Review } from "./model.ts"
import { installPushHook, parseRefUpdates, removePushHook } from "./push-hook.ts"
import { type Answer, restRoute } from "./rest.ts"

export type { CheckConclusion, CiRule, CiRun, CiVerdict } from "./model.ts"

export interface PullSnapshot {
  readonly headSha: string
  readonly ci: "pending" | "success" | "failure" | null
  readonly merged: boolean
  readonly reviews: ReadonlyArray<{ readonly state: string; readonly commit: string }>
}

export interface EmulatedRepoOptions {
  /** owner/name */
  readonly repo: string
  /** The bare repository pushes go to (the project's `origin`). */
  readonly gitDir: string
  /**
   * Branch protection on the branches pull requests merge into: the `ci` check must pass on a head that has
   * every commit of the base ("Require branches to be up to date before merging"). Only then does GitHub report
   * `behind` and refuse to merge a head that is behind. Default false, as on a new repository.
   */
  readonly requireUpToDate?: boolean
}

export interface EmulatorOptions {
  readonly repos: ReadonlyArray<EmulatedRepoOptions>
  /** CI's verdict for every new head commit (it sees the commit's files); default: success. */
  readonly ci?: CiRule
  /** How long a check run stays in progress at least; default 0. */
  readonly ciDelayMs?: number
  /**
   * Unset: a pull request's mergeability is computed when it is read. Set: lazily, as GitHub does: the first
   * read after its head or base moved answers `mergeable: null` (`UNKNOWN`) and the answer settles this many
   * milliseconds later.
   */
  readonly mergeabilityDelayMs?: number
  /** Requests an hour for REST (`core`) and points for GraphQL; default 5000 each. */
  readonly rateLimit?: number
  readonly webhooks?: ReadonlyArray<Hook>
  /** Port to listen on; default any free one. */
  readonly port?: number
}

export interface LoggedRequest {
  readonly method: string
  /** Path and query, as sent. */
  readonly url: string
  readonly body: unknown
}

export interface EmulatorStats {
  /** REST requests answered with a body (they count against the `core` rate limit). */
  counted: number
  /** REST requests answered 304 Not Modified (free). */
  notModified: number
  /** GraphQL queries answered, and the points they cost. */
  graphqlQueries: number
  graphqlPoints: number
}

export interface Emulator {
  readonly url: string
  readonly stats: EmulatorStats
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<LoggedRequest>
  readonly deliveries: ReadonlyArray<Delivery>
  readonly addIssue: (repo: string, issue: { readonly title: string; readonly body?: string; readonly labels?: ReadonlyArray<string> }) => number
  readonly issue: (repo: string, number: number) => { readonly state: "open" | "closed" } | undefined
  readonly closeIssue: (repo: string, number: number, reason?: "COMPLETED" | "NOT_PLANNED") => void
  /** A review; line comments come with it and open review threads, as on GitHub. */
  readonly review: (
    repo: string,
    pull: number,
    state: Review["state"],
    body?: string,
    comments?: ReadonlyArray<{ readonly path: string; readonly line: number; readonly body: string }>,
    user?: Actor
  ) => void
  readonly resolveThreads: (repo: string, pull: number) => void
  /** Forces a pull request (un)conflicted whatever git says; undefined hands the answer back to git. */
  readonly setConflicts: (repo: string, pull: number, conflicts: boolean | undefined) => void
  /** Turns the repository's "require branches to be up to date" protection on or off. */
  readonly setRequireUpToDate: (repo: string, required: boolean) => void
  readonly setStatus: (repo: string, sha: string, status: CommitStatus) => void
  readonly pull: (repo: string, number: number) => Pull | undefined
  readonly pullForBranch: (repo: string, branch: string) => Pull | undefined
  /** A pull request's head, its CI on that head, and its reviews (with the commit each was made on). */
  readonly snapshot: (repo: string, number: number) => PullSnapshot
  readonly addWebhook: (hook: Hook) => void
  /** The next `count` API requests (or only those to GraphQL, or to REST) fail with `status` (a 5xx storm, say). */
  readonly failNext: (count: number, status: number, only?: "graphql" | "rest") => void
  /** Resolves once every webhook delivery so far has been attempted. */
  readonly settled: () => Promise<void>
  /** Resolves once no check run is in progress and no mergeability is being computed, and their deliveries went. */
  readonly idle: () => Promise<void>
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let data = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (data += chunk))
    req.on("end", () => resolve(data))
    req.on("error", reject)
  })

const parseJson = (text: string): Record<string, unknown> | undefined => {
  if (text === "") return {}
  try {
    const value = JSON.parse(text) as unknown
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

export const startEmulator = async (options: EmulatorOptions): Promise<Emulator> => {
  const stats: EmulatorStats = { counted: 0, notModified: 0, graphqlQueries: 0, graphqlPoints: 0 }
  const requests: Array<LoggedRequest> = []
  const limit = options.rateLimit ?? 5000
  const resetAt = () => Math.floor(Date.now() / 1000) + 3600
  const deliveries = makeDeliveries()
  for (const hook of options.webhooks ?? []) deliveries.add(hook)
  let base = ""
  let failures: { count: number; status: number; only?: "graphql" | "rest" | undefined } = { count: 0, status: 500 }

  const model = makeModel(options.repos, {
    ...(options.ci ? { ci: options.ci } : {}),
    ...(options.ciDelayMs !== undefined ? { ciDelayMs: options.ciDelayMs } : {}),
    ...(options.mergeabilityDelayMs !== undefined ? { mergeabilityDelayMs: options.mergeabilityDelayMs } : {}),
    baseUrl: () => base,
    emit: (event, repo, payload) =>
      deliveries.emit(event, {
        ...payload,
        repository: {
          full_name: repo.fullName,
          name: repo.fullName.split("/")[1],
          owner: { login: repo.fullName.split("/")[0] },
          html_url: `${base}/${repo.fullName}`
        },
        sender: { login: "emulator", type: "User" }
      })
  })
  const runGraphql = makeGraphql(
    model,
    () => ({ limit, remaining: Math.max(0, limit - stats.graphqlPoints), used: stats.graphqlPoints, resetAt: new Date(resetAt() * 1000).toISOString() })
  )

  const rateHeaders = (resource: "core" | "graphql", used: number) => ({
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(Math.max(0, limit - used)),
    "x-ratelimit-used": String(used),
    "x-ratelimit-resource": resource,
    "x-ratelimit-reset": String(resetAt())
  })

  const send = (res: ServerResponse, status: number, headers: Record<string, string>, body?: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
    res.end(body === undefined ? undefined : JSON.stringify(body))
  }

  const handleGraphql = async (res: ServerResponse, body: Record<string, unknown>) => {
    if (stats.graphqlPoints >= limit) {
      return send(res, 200, rateHeaders("graphql", stats.graphqlPoints), { errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded for user." }] })
    }
    const query = typeof body.query === "string" ? body.query : ""
    const variables = body.variables !== null && typeof body.variables === "object" ? (body.variables as Record<string, unknown>) : undefined
    // The query's cost is charged before it runs (its `rateLimit` shows what is left after it); a document that
    // does not validate costs nothing.
    stats.graphqlPoints++
    const result = await runGraphql(query, variables)
    const valid = result.data !== undefined && result.data !== null
    if (valid) stats.graphqlQueries++
    else stats.graphqlPoints--
    send(
      res,
      200,
      rateHeaders("graphql", stats.graphqlPoints),
      valid ? result : { errors: result.errors?.map((e) => ({ message: e.message, locations: e.locations })) }
    )
  }

  const handleRest = (req: IncomingMessage, res: ServerResponse, url: URL, body: Record<string, unknown>) => {
    const answer: Answer = stats.counted >= limit
      ? { status: 403, body: { message: "API rate limit exceeded", documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api" } }
      : url.pathname === "/rate_limit"
      ? { status: 200, body: { resources: { core: { limit, remaining: limit - stats.counted }, graphql: { limit, remaining: limit - stats.graphqlPoints } } } }
      : restRoute(model, req.method ?? "GET", url, body, base)
    const text = answer.body === undefined ? "" : JSON.stringify(answer.body)
    const etag = `W/"${createHash("sha1").update(text).digest("hex")}"`
    const fresh = req.method === "GET" && answer.status === 200 && req.headers["if-none-match"] === etag
    if (fresh) stats.notModified++
    else if (stats.counted < limit) stats.counted++
    res.writeHead(fresh ? 304 : answer.status, {
      "content-type": "application/json; charset=utf-8",
      ...(req.method === "GET" && answer.status === 200 ? { etag } : {}),
      ...rateHeaders("core", stats.counted)
    })
    res.end(fresh ? undefined : text)
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    readBody(req).then(async (text) => {
      // Git's post-receive hook (not part of GitHub's API; never rate limited or failed on purpose).
      const push = /^\/_emulator\/push\/([^/]+\/[^/]+)$/.exec(url.pathname)
      if (push !== null) {
        const repo = model.repos.get(push[1]!)
        if (repo !== undefined) model.pushed(repo, parseRefUpdates(text))
        return send(res, repo === undefined ? 404 : 204, {})
      }
      const body = parseJson(text)
      requests.push({ method: req.method ?? "GET", url: req.url ?? "/", body: req.method === "GET" ? undefined : body })
      const graphql = req.method === "POST" && (url.pathname === "/graphql" || url.pathname === "/api/graphql")
      if (failures.count > 0 && (failures.only === undefined || (failures.only === "graphql") === graphql)) {
        failures.count--
        return send(res, failures.status, {}, { message: failures.status === 404 ? "Not Found" : "Server Error" })
      }
      if (body === undefined) return send(res, 400, {}, { message: "Problems parsing JSON" })
      if (graphql) return handleGraphql(res, body)
      handleRest(req, res, url, body)
    }).catch((error: unknown) => send(res, 500, {}, { message: String(error) }))
  })

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  for (const repo of options.repos) installPushHook(repo.gitDir, `${base}/_emulator/push/${repo.repo}`)

  const repoOf = (name: string) => {
    const repo = model.repos.get(name)
    if (repo === undefined) throw new Error(`the emulator does not serve ${name}`)
    return repo
  }
  const pullOf = (name: string, number: number) => {
    const pull = repoOf(name).pulls.get(number)
    if (pull === undefined) throw new Error(`${name} has no pull request #${number}`)
    return pull
  }

  return {
    url: base,
    stats,
    requests,
    deliveries: deliveries.log,
    addIssue: (name, issue) => {
      const repo = repoOf(name)
      const number = repo.next++
      repo.issues.set(number, { number, title: issue.title, body: issue.body ?? "", labels: [...(issue.labels ?? [])], state: "open" })
      return number
    },
    issue: (name, number) => repoOf(name).issues.get(number),
    closeIssue: (name, number, reason = "COMPLETED") => {
      const issue = repoOf(name).issues.get(number)
      if (issue === undefined) throw new Error(`${name} has no issue #${number}`)
      issue.state = "closed"
      issue.stateReason = reason
    },
    review: (name, number, state, body = "", comments = [], user) => {
      model.review(repoOf(name), pullOf(name, number), { state, body, comments, ...(user ? { user } : {}) })
    },
    resolveThreads: (name, number) => {
      for (const thread of repoOf(name).threads.get(number) ?? []) thread.resolved = true
    },
    setConflicts: (name, number, conflicts) => {
      pullOf(name, number).forcedConflicts = conflicts
    },
    setRequireUpToDate: (name, required) => {
      repoOf(name).requireUpToDate = required
    },
    setStatus: (name, sha, status) => {
      const repo = repoOf(name)
      repo.statuses.set(sha, [...(repo.statuses.get(sha) ?? []).filter((s) => s.context !== status.context), status])
    },
    pull: (name, number) => model.repos.get(name)?.pulls.get(number),
    pullForBranch: (name, branch) => [...(model.repos.get(name)?.pulls.values() ?? [])].filter((p) => p.head === branch).at(-1),
    snapshot: (name, number) => {
      const repo = repoOf(name)
      const pull = pullOf(name, number)
      const headSha = model.headSha(repo, pull.head) ?? ""
      const ci = rollUp(repo.checks.get(headSha) ?? [])
      return {
        headSha,
        ci: ci === "none" ? null : ci,
        merged: pull.merged,
        reviews: (repo.reviews.get(number) ?? []).map((r) => ({ state: r.state, commit: r.commit_id }))
      }
    },
    addWebhook: deliveries.add,
    failNext: (count, status, only) => {
      failures = { count, status, only }
    },
    settled: deliveries.settled,
    idle: async () => {
      await model.idle()
      await deliveries.settled()
    },
    close: async () => {
      model.close()
      for (const repo of options.repos) removePushHook(repo.gitDir)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
