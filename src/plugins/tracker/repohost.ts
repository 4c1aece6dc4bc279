/**
 * Tracker `repohost`: a GitHub issue's title, body, labels and URL through the REST API (`apiUrl`, default
 * https://api.github.com), through the credential's shared gateway (ETags, budget). Token: `token` in the tracker config, else GITHUB_TOKEN, else GH_TOKEN.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import type { TrackerConfig } from "../../config/schema.ts"
import { gatewayFor } from "../scm/gateway.ts"
import { InvalidIssueId, IssueNotFound, TrackerUnavailable, type Issue, type TrackerShape } from "./Tracker.ts"

const DEFAULT_API_URL = "https://api.github.com"

/** The GitHub CLI's token (`gh auth token`), asked once per process, when `gh` is installed and logged in. */
let ghToken: string | null | undefined
const ghAuthToken = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  if (ghToken === undefined) {
    try {
      ghToken = execFileSync("gh", ["auth", "token"], { encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "ignore"], env: env as NodeJS.ProcessEnv }).trim() || null
    } catch {
      ghToken = null
    }
  }
  return ghToken ?? undefined
}

/** Token: `token` in the plugin's config, else $GITHUB_TOKEN, else $GH_TOKEN, else `gh auth token`. */
export const repohostToken = (config: TrackerConfig, env: Readonly<Record<string, string | undefined>>): string | undefined =>
  (typeof config.token === "string" && config.token !== "" ? config.token : undefined) || env.GITHUB_TOKEN || env.GH_TOKEN || ghAuthToken(env)

export const repohostHeaders = (token: string | undefined): Record<string, string> => ({
  accept: "application/vnd.github+json",
  "x-github-api-version": "2022-11-28",
  "user-agent": "orch",
  ...(token !== undefined ? { authorization: `Bearer ${token}` } : {})
})

interface GitHubIssue {
  readonly number: number
  readonly title: string
  readonly body: string | null
  readonly html_url: string
  readonly labels: ReadonlyArray<string | { readonly name?: string }>
}

export const makeRepohostTracker = (
  repo: string,
  config: TrackerConfig,
  env: Readonly<Record<string, string | undefined>>
): TrackerShape => {
  const apiUrl = (typeof config.apiUrl === "string" ? config.apiUrl : DEFAULT_API_URL).replace(/\/+$/, "")
  const headers = repohostHeaders(repohostToken(config, env))
  const unavailable = (reason: string) => new TrackerUnavailable({ tracker: `repohost ${apiUrl}`, reason })

  const getIssue = Effect.fn("Tracker.repohost.getIssue")(function*(issueId: string) {
    const number = issueId.replace(/^#/, "")
    if (!/^\d+$/.test(number)) return yield* new InvalidIssueId({ issueId, expected: `an issue number of ${repo}, like 42` })
    const issue = yield* gatewayFor("repohost", apiUrl, headers).get<GitHubIssue>(`/repos/${repo}/issues/${number}`).pipe(
      Effect.mapError((error): IssueNotFound | TrackerUnavailable =>
        error.status === 404 || error.status === 410
          ? new IssueNotFound({ issueId: `#${number}`, where: repo })
          : unavailable(error.status !== undefined ? `HTTP ${error.status}` : error.reason)
      )
    )
    return {
      id: number,
      title: issue.title,
      body: issue.body ?? "",
      labels: issue.labels.map((label) => (typeof label === "string" ? label : label.name ?? "")).filter(Boolean),
      url: issue.html_url
    } satisfies Issue
  })
  return { name: "repohost", getIssue }
}
