/**
 * Tracker `tracker-b`: Linear issues through Linear's GraphQL API (linear-api.ts). Config keys: `teamId` (the
 * team's key, e.g. ENG, or its id), `apiKey` (write `${LINEAR_API_KEY}`), `apiUrl` (default Linear's),
 * `useBranchName` (default true: a session's branch is Linear's suggested `branchName`) and `commentOn` (event
 * types that get a comment on the issue while a supervisor runs; default none). The API key is sent only in
 * the Authorization header: no message, event or log names it, only where it is configured.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ProjectConfig, TrackerConfig } from "../../config/schema.ts"
import { didYouMean } from "../../config/suggest.ts"
import { EVENT_TYPES, type EventType } from "../../domain/event.ts"
import { type Expected, expected, readAnswer } from "../answer.ts"
import { PluginConfigError } from "../config-error.ts"
import {
  COMMENT_MUTATION,
  COMPLETED_STATE_TYPES,
  DEFAULT_LINEAR_API_URL,
  ISSUE_QUERY,
  ISSUE_STATES_QUERY,
  type LinearAnswer,
  type LinearEndpoint,
  linearRequest,
  OPEN_ISSUES_QUERY
} from "./linear-api.ts"
import {
  InvalidIssueId,
  type Issue,
  IssueNotFound,
  type IssueState,
  type IssueTrackerShape,
  type SessionUpdate,
  TrackerAuthFailed,
  TrackerUnavailable
} from "./Tracker.ts"

export const TRACKER_B_KEYS = ["plugin", "package", "path", "teamId", "apiKey", "apiUrl", "useBranchName", "commentOn"] as const

export interface TrackerBSettings extends LinearEndpoint {
  readonly teamId: string
  readonly useBranchName: boolean
  readonly commentOn: ReadonlyArray<EventType>
}

const IDENTIFIER = /^[A-Za-z0-9]+-(\d+)$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const STATES_PAGE = 250
const OPEN_ISSUES_PAGE = 100

/** The plugin's keys, checked. Pure. */
export const trackerBSettings = (config: TrackerConfig, where: string): Result.Result<TrackerBSettings, PluginConfigError> => {
  const fail = (key: string, reason: string) => Result.fail(new PluginConfigError({ key: `${where}.${key}`, reason }))
  const unknown = Object.keys(config).find((key) => !(TRACKER_B_KEYS as ReadonlyArray<string>).includes(key))
  if (unknown !== undefined) return fail(unknown, `unknown tracker-b key${didYouMean(unknown, TRACKER_B_KEYS)}`)
  const { teamId, apiKey, apiUrl = DEFAULT_LINEAR_API_URL, useBranchName = true, commentOn = [] } = config
  if (typeof teamId !== "string" || teamId.trim() === "") return fail("teamId", "required: the Linear team's key (e.g. ENG) or id")
  if (typeof apiKey !== "string" || apiKey === "") {
    return fail("apiKey", "required: a Linear API key, from the environment (apiKey: ${LINEAR_API_KEY})")
  }
  if (typeof apiUrl !== "string" || !URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    return fail("apiUrl", "must be an http or https URL")
  }
  if (typeof useBranchName !== "boolean") return fail("useBranchName", "must be true or false")
  if (!Array.isArray(commentOn)) return fail("commentOn", "must be a list of event types")
  const badEvent = commentOn.find((type) => !(EVENT_TYPES as ReadonlyArray<unknown>).includes(type))
  if (badEvent !== undefined) {
    return fail("commentOn", `unknown event type ${JSON.stringify(badEvent)}${didYouMean(String(badEvent), EVENT_TYPES)} (see docs/events.md)`)
  }
  return Result.succeed({ teamId: teamId.trim(), apiKey, apiUrl, useBranchName, commentOn: commentOn as ReadonlyArray<EventType> })
}

const State = Schema.Struct({ name: Schema.String, type: Schema.String })
/** The fields of ISSUE_FIELDS, as read. */
const IssueFields = Schema.Struct({
  identifier: Schema.String,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  url: Schema.String,
  branchName: Schema.String,
  state: State,
  labels: Schema.Struct({ nodes: Schema.Array(Schema.Struct({ name: Schema.String })) })
})
const IssueAnswer = Schema.Struct({ issue: Schema.Struct({ ...IssueFields.fields, team: Schema.Struct({ id: Schema.String, key: Schema.String }) }) })
const StatesAnswer = Schema.Struct({
  issues: Schema.Struct({ nodes: Schema.Array(Schema.Struct({ identifier: Schema.String, number: Schema.Number, state: State })) })
})
const OpenIssuesAnswer = Schema.Struct({ issues: Schema.Struct({ nodes: Schema.Array(IssueFields) }) })
const CommentAnswer = Schema.Struct({ commentCreate: Schema.Struct({ success: Schema.Boolean }) })

const issueState = (state: typeof State.Type): IssueState => ({ name: state.name, completed: COMPLETED_STATE_TYPES.includes(state.type) })

/** The comment a session event leaves on its issue. Pure. */
export const commentFor = (update: SessionUpdate): string => {
  const session = `orch session \`${update.sessionId}\``
  const pr = update.event.prNumber !== undefined && update.pr?.number === update.event.prNumber ? ` ${update.pr.url}` : ""
  switch (update.event.type) {
    case "session.spawned":
      return `${session} started work on this issue, on branch \`${update.branch}\`.`
    case "pr.created":
      return `${session} opened a pull request:${pr || ` #${update.event.prNumber}`}`
    case "pr.merged":
      return `The pull request of ${session} merged:${pr || ` #${update.event.prNumber}`}`
    case "session.killed":
    case "session.cleaned":
      return `${session} ended${update.event.message ? `: ${update.event.message}` : "."}`
    default:
      return `${session}: ${update.event.type}${update.event.message ? ` (${update.event.message})` : ""}`
  }
}

/** A project's tracker-b; `where` names its settings in errors (default `projects.<key>.tracker`). */
export const makeLinearTracker = (
  project: Pick<ProjectConfig, "key" | "tracker">,
  where = `projects.${project.key}.tracker`
): Effect.Effect<IssueTrackerShape, PluginConfigError> =>
  Effect.gen(function*() {
    const settings = yield* Effect.fromResult(trackerBSettings(project.tracker, where))
    const tracker = `tracker-b ${settings.apiUrl}`
    const team = settings.teamId

    /** One document; every way it can go wrong becomes the tracker's error, the answer a decoded value. */
    const ask = <A>(reading: Expected<A>, query: string, variables: Record<string, unknown>, issueId?: string) =>
      linearRequest(settings, query, variables).pipe(
        Effect.mapError((reason) => new TrackerUnavailable({ tracker, reason })),
        Effect.flatMap((answer: LinearAnswer): Effect.Effect<A, IssueNotFound | TrackerAuthFailed | TrackerUnavailable> => {
          switch (answer._tag) {
            case "NotFound":
              return Effect.fail(new IssueNotFound({ issueId: issueId ?? "?", where: `Linear (team ${team})` }))
            case "AuthFailed":
              return Effect.fail(new TrackerAuthFailed({ tracker: "Linear", key: `${where}.apiKey`, reason: answer.message }))
            case "Failed":
              return Effect.fail(new TrackerUnavailable({ tracker, reason: answer.reason }))
            case "Data":
              return readAnswer(reading)(answer.data).pipe(Effect.mapError((problem) => new TrackerUnavailable({ tracker, reason: `Linear ${problem}` })))
          }
        })
      )

    /** An issue as Linear answers it (ISSUE_FIELDS), as orch's Issue. */
    const toIssue = (issue: typeof IssueFields.Type): Issue => ({
      id: issue.identifier,
      title: issue.title,
      body: issue.description ?? "",
      labels: issue.labels.nodes.map((label) => label.name),
      url: issue.url,
      ...(settings.useBranchName ? { branchName: issue.branchName } : {}),
      state: issueState(issue.state)
    })

    const getIssue = Effect.fn("Tracker.trackerB.getIssue")(function*(issueRef: string) {
      const id = issueRef.replace(/^#/, "")
      if (!IDENTIFIER.test(id)) return yield* new InvalidIssueId({ issueId: issueRef, expected: "a Linear issue identifier like ENG-123" })
      const { issue } = yield* ask(expected(IssueAnswer, `issue ${id}`), ISSUE_QUERY, { id }, id)
      if (issue.team.id !== team && issue.team.key.toLowerCase() !== team.toLowerCase()) {
        return yield* new InvalidIssueId({
          issueId: id,
          expected: `an issue of Linear team ${team}, but ${issue.identifier} belongs to team ${issue.team.key}`
        })
      }
      return toIssue(issue)
    })

    const teamFilter = UUID.test(team) ? { id: { eq: team } } : { key: { eqIgnoreCase: team } }
    const issueStates = Effect.fn("Tracker.trackerB.issueStates")(function*(issueIds: ReadonlyArray<string>) {
      const byNumber = new Map(issueIds.flatMap((id) => {
        const number = IDENTIFIER.exec(id)?.[1]
        return number === undefined ? [] : [[Number(number), id] as const]
      }))
      const numbers = [...byNumber.keys()]
      const states = new Map<string, IssueState>()
      for (let start = 0; start < numbers.length; start += STATES_PAGE) {
        const page = numbers.slice(start, start + STATES_PAGE)
        const { issues } = yield* ask(expected(StatesAnswer, "the states of issues"), ISSUE_STATES_QUERY, {
          filter: { team: teamFilter, number: { in: page } },
          first: STATES_PAGE
        }).pipe(
          Effect.catchTag("IssueNotFound", () => Effect.succeed({ issues: { nodes: [] } }))
        )
        for (const node of issues.nodes) {
          const id = byNumber.get(node.number)
          if (id !== undefined && id.toLowerCase() === node.identifier.toLowerCase()) states.set(id, issueState(node.state))
        }
      }
      return states as ReadonlyMap<string, IssueState>
    })

    const openIssues = Effect.fn("Tracker.trackerB.openIssues")(function*(labels: ReadonlyArray<string>) {
      const { issues } = yield* ask(expected(OpenIssuesAnswer, `the open issues labelled ${labels.join(", ")}`), OPEN_ISSUES_QUERY, {
        filter: {
          team: teamFilter,
          state: { type: { nin: COMPLETED_STATE_TYPES } },
          and: labels.map((name) => ({ labels: { some: { name: { eqIgnoreCase: name } } } }))
        },
        first: OPEN_ISSUES_PAGE
      }).pipe(Effect.catchTag("IssueNotFound", () => Effect.succeed({ issues: { nodes: [] } })))
      return issues.nodes.map(toIssue)
    })

    const onSessionEvent = Effect.fn("Tracker.trackerB.onSessionEvent")(function*(update: SessionUpdate) {
      if (!settings.commentOn.includes(update.event.type)) return
      const { commentCreate } = yield* ask(expected(CommentAnswer, "a comment"), COMMENT_MUTATION, {
        input: { issueId: update.issueId, body: commentFor(update) }
      }, update.issueId)
      if (!commentCreate.success) return yield* new TrackerUnavailable({ tracker, reason: "Linear did not create the comment" })
    })

    return {
      name: "tracker-b",
      namesBranches: settings.useBranchName,
      getIssue,
      issueStates,
      openIssues,
      ...(settings.commentOn.length > 0 ? { onSessionEvent } : {})
    } satisfies IssueTrackerShape
  })
