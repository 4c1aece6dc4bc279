/**
 * Tracker `repohost`: a GitHub issue's title, body, labels and URL through the REST API (`apiUrl`, default
 * https://api.github.com), through the credential's gateway (ETags, budget), shared with the process's other repohost plugins. Token: `token` in the tracker config, else GITHUB_TOKEN, else GH_TOKEN.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { TrackerConfig } from "../../config/schema.ts"
import { expected } from "../answer.ts"
import { type PluginConfigError, unknownSettingProblem } from "../config-error.ts"
import { makeRepohostAccess, type RepohostAccess, repohostApiUrl, repohostHeaders, repohostToken } from "../repohost/access.ts"
import { InvalidIssueId, type Issue, IssueNotFound, type IssueState, type IssueTrackerShape, TrackerUnavailable } from "./Tracker.ts"

/** The settings the built-in repohost tracker reads (docs/configuration.md); any other key is a mistake. */
export const REPOHOST_TRACKER_KEYS = ["plugin", "package", "path", "apiUrl", "token"] as const

/** A key of the repohost tracker's settings that it does not read, named; undefined when none. */
export const repohostTrackerProblem = (config: TrackerConfig | undefined, where: string): PluginConfigError | undefined =>
  unknownSettingProblem(config, REPOHOST_TRACKER_KEYS, where, "repohost tracker")

/** An issue as GitHub's REST API answers it (the fields orch reads). */
const GitHubIssue = Schema.Struct({
  number: Schema.Int,
  title: Schema.String,
  body: Schema.NullOr(Schema.String),
  html_url: Schema.String,
  labels: Schema.Array(Schema.Union([Schema.String, Schema.Struct({ name: Schema.optionalKey(Schema.String) })])),
  state: Schema.optionalKey(Schema.Literals(["open", "closed"])),
  state_reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Present on the pull requests the issues list also answers. */
  pull_request: Schema.optionalKey(Schema.Unknown)
})

const fromGitHub = (issue: typeof GitHubIssue.Type): Issue => ({
  id: String(issue.number),
  title: issue.title,
  body: issue.body ?? "",
  labels: issue.labels.map((label) => (typeof label === "string" ? label : label.name ?? "")).filter(Boolean),
  url: issue.html_url,
  ...(issue.state !== undefined ? { state: issueState(issue.state, issue.state_reason) } : {})
})

/** The answer of issueStatesQuery: per alias (`i0`, `i1`, …) the issue, null when there is none. */
const IssueStatesAnswer = Schema.Struct({
  repository: Schema.NullOr(
    Schema.Record(Schema.String, Schema.NullOr(Schema.Struct({ number: Schema.Int, state: Schema.String, stateReason: Schema.NullOr(Schema.String) })))
  )
})

/** A closed issue's work is over, whether completed or not planned; its name says which. */
export const issueState = (state: string, reason: string | null | undefined): IssueState =>
  state.toLowerCase() === "closed"
    ? { name: reason ? `closed (${reason.toLowerCase().replace(/_/g, " ")})` : "closed", completed: true }
    : { name: "open", completed: false }

/** The states of many issues in one GraphQL query, one alias per issue; numbers travel as variables. */
export const issueStatesQuery = (numbers: ReadonlyArray<number>) => ({
  query: [
    `query OrchIssueStates($owner: String!, $name: String!${numbers.map((_, i) => `, $i${i}: Int!`).join("")}) {`,
    "  repository(owner: $owner, name: $name) {",
    ...numbers.map((_, i) => `    i${i}: issue(number: $i${i}) { number state stateReason }`),
    "  }",
    "}"
  ].join("\n"),
  variables: (owner: string, name: string) => ({ owner, name, ...Object.fromEntries(numbers.map((n, i) => [`i${i}`, n])) })
})
const ISSUES_PER_QUERY = 50

export const makeRepohostTracker = (
  repo: string,
  config: TrackerConfig,
  env: Readonly<Record<string, string | undefined>>,
  access: RepohostAccess = makeRepohostAccess(env)
): IssueTrackerShape => {
  const apiUrl = repohostApiUrl(config)
  const gateway = access.gateways.for("repohost", apiUrl, repohostHeaders(repohostToken(config, env, access)))
  const unavailable = (reason: string) => new TrackerUnavailable({ tracker: `repohost ${apiUrl}`, reason })

  const getIssue = Effect.fn("Tracker.repohost.getIssue")(function*(issueId: string) {
    const number = issueId.replace(/^#/, "")
    if (!/^\d+$/.test(number)) return yield* new InvalidIssueId({ issueId, expected: `an issue number of ${repo}, like 42` })
    const issue = yield* gateway.get(`/repos/${repo}/issues/${number}`, expected(GitHubIssue, `issue #${number}`)).pipe(
      Effect.mapError((error): IssueNotFound | TrackerUnavailable =>
        error.status === 404 || error.status === 410
          ? new IssueNotFound({ issueId: `#${number}`, where: repo })
          : unavailable(error.status !== undefined ? `HTTP ${error.status}` : error.reason)
      )
    )
    return fromGitHub(issue)
  })

  const openIssues = Effect.fn("Tracker.repohost.openIssues")(function*(labels: ReadonlyArray<string>) {
    const query = new URLSearchParams({ state: "open", labels: labels.join(","), per_page: "100" })
    const issues = yield* gateway.get(`/repos/${repo}/issues?${query}`, expected(Schema.Array(GitHubIssue), `the open issues labelled ${labels.join(", ")}`))
      .pipe(
        Effect.mapError((error) => unavailable(error.status !== undefined ? `HTTP ${error.status}` : error.reason))
      )
    return issues.filter((issue) => issue.pull_request === undefined).map(fromGitHub)
  })

  const issueStates = Effect.fn("Tracker.repohost.issueStates")(function*(issueIds: ReadonlyArray<string>) {
    const numbers = [...new Set(issueIds.map((id) => id.replace(/^#/, "")).filter((id) => /^\d+$/.test(id)).map(Number))]
    const [owner, name] = repo.split("/") as [string, string]
    const states = new Map<string, IssueState>()
    for (let start = 0; start < numbers.length; start += ISSUES_PER_QUERY) {
      const chunk = numbers.slice(start, start + ISSUES_PER_QUERY)
      const { query, variables } = issueStatesQuery(chunk)
      const data = yield* gateway.graphql(query, variables(owner, name), expected(IssueStatesAnswer, "the states of issues")).pipe(
        Effect.mapError((error) => unavailable(error.reason))
      )
      for (const issue of Object.values(data.repository ?? {})) {
        if (issue !== null) states.set(String(issue.number), issueState(issue.state, issue.stateReason))
      }
    }
    return states
  })
  return { name: "repohost", getIssue, issueStates, openIssues }
}
