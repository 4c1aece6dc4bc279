/**
 * The supervisor's dashboard on `port`: the page (the board at `/`, a session at `/sessions/<id>`), its static
 * files, a JSON API under `/api`, the live stream `/api/events` (Server-Sent Events, one per page), the
 * repohost webhook receiver, and the terminal sockets (terminals.ts). It binds `host` (127.0.0.1 unless
 * configured). Every request needs the per-install token (auth.ts); actions are POSTs, and a browser's must
 * come from the dashboard's own origin.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { existsSync } from "node:fs"
import { OrchEvent } from "../domain/event.ts"
import { watchedView } from "../domain/live.ts"
import { SessionRecord } from "../domain/session.ts"
import { Killed } from "../ipc/protocol.ts"
import { SessionNotRunning } from "../sessions/errors.ts"
import type { OpError } from "../sessions/SessionOps.ts"
import { EventLog } from "../store/EventLog.ts"
import type { InboxShape } from "../store/Inbox.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { asListed } from "../store/spawner.ts"
import { apiFailure } from "./api-failure.ts"
import {
  ApiError,
  type Boot,
  InboxState,
  LiveMessage,
  MarkReadRequest,
  Merged,
  Opened,
  type ProjectSummary,
  SendRequest,
  Sent,
  WebhookAccepted,
  WebhookIgnored
} from "./api.ts"
import { findAssetsDir, loadAssets } from "./assets.ts"
import { COOKIE, originAllowed, requestToken } from "./auth.ts"
import { ClosingServer, trackConnections } from "./connections.ts"
import { sessionEvents } from "./event-tail.ts"
import { ListenFailed, listenReason } from "./listen-error.ts"
import { type KeepGoing, makeLiveHub } from "./live.ts"
import { type OpenFailed, openOnThisMachine } from "./open.ts"
import { contentSecurityPolicy, renderPage, unbuiltPage } from "./page.ts"
import { type TerminalOf, terminalsLayer } from "./terminals.ts"
import { sameToken } from "./token.ts"
import { receive, type WebhookProject } from "./webhooks.ts"

/** What a person may do to a session from the dashboard: the supervisor's own procedures. */
export interface DashboardActions {
  readonly send: (sessionId: string, message: string) => Effect.Effect<void, OpError>
  readonly kill: (sessionId: string) => Effect.Effect<typeof Killed.Type, OpError>
  readonly restore: (sessionId: string) => Effect.Effect<SessionRecord, OpError>
  readonly merge: (sessionId: string) => Effect.Effect<{ readonly prNumber: number; readonly train?: { readonly position: number } }, OpError>
}

export interface DashboardOptions {
  readonly host: string
  readonly port: number
  readonly terminalPort: number
  /** Deprecated: serves the same terminal sockets as `terminalPort`. */
  readonly directTerminalPort: number
  readonly token: string
  readonly version: string
  /** The projects watched now (a config reload changes them): asked for each page. */
  readonly projects: Effect.Effect<ReadonlyArray<ProjectSummary>>
  /** The hosts of the config in force, local first; empty when no other machine is configured. */
  readonly hosts?: Effect.Effect<ReadonlyArray<string>>
  readonly inbox: InboxShape
  /** The runtime `attach` that shows a session's terminal (its project's runtime), or why there is none. */
  readonly terminalOf: TerminalOf
  readonly actions: DashboardActions
  /** Projects that receive repohost webhooks now (asked for each delivery), and what to do with a delivery about a branch. */
  readonly webhooks: Effect.Effect<ReadonlyArray<WebhookProject>>
  readonly onBranchChanged: (repo: string, branch: string) => Effect.Effect<void>
  /** Keeps the live feeds going through failures, each reported. */
  readonly keepGoing: KeepGoing
  /** Where the built page files are; found beside the running code when not given. */
  readonly assetsDir?: string
}

const TIMELINE_LIMIT = 500
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

const apiError = (status: number, error: string, message: string) =>
  HttpServerResponse.jsonUnsafe(Schema.encodeSync(ApiError)({ error, message }), { status, headers: { "cache-control": "no-store" } })

class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { reason: Schema.String }) {
  override get message() {
    return `bad request body: ${this.reason}`
  }
}

/** A failed action or read as the API tells it (api-failure.ts). */
const failed = (error: unknown) => {
  const { status, error: code, message } = apiFailure(error)
  return apiError(status, code, message)
}

const json = <A, I>(schema: Schema.Codec<A, I>, value: A, status = 200) =>
  HttpServerResponse.jsonUnsafe(Schema.encodeSync(schema)(value), { status, headers: { "cache-control": "no-store" } })

const htmlPage = (body: string, csp: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { ...PAGE_HEADERS, "content-security-policy": csp } })

const sseFrame = (message: LiveMessage) => `event: ${message.kind}\ndata: ${JSON.stringify(Schema.encodeSync(LiveMessage)(message))}\n\n`

/**
 * The routes; `closing` completes when the server starts to close: the live streams end then, with a last `stopping`
 * message, so the close does not wait out its grace on them and their clients know the supervisor stopped.
 */
const routes = (options: DashboardOptions, closing: Effect.Effect<void>) =>
  HttpRouter.use(Effect.fn(function*(router) {
    const store = yield* SessionStore
    const events = yield* EventLog
    const watched = Effect.map(options.projects, (projects): ReadonlySet<string> => new Set(projects.map((p) => p.id)))
    const shown = (record: SessionRecord) => Effect.map(watched, (ids) => watchedView(asListed(record), ids))
    const hub = yield* makeLiveHub({ store, events, inbox: options.inbox, keepGoing: options.keepGoing, supervisorPid: process.pid, watched })
    const assetsDir = options.assetsDir ?? findAssetsDir()
    const assets = assetsDir !== undefined && existsSync(assetsDir) ? loadAssets(assetsDir) : new Map()
    const boot = Effect.map(Effect.all([options.projects, options.hosts ?? Effect.succeed([])]), ([projects, hosts]): Boot => ({
      version: options.version,
      terminalPort: options.terminalPort,
      projects,
      ...(hosts.length > 1 ? { hosts } : {})
    }))

    /** Runs `handler` only for requests with the token (and, for POSTs from a browser, from the dashboard's origin). */
    const guarded = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
        const token = requestToken({ url: request.url, authorization: request.headers.authorization, cookie: request.headers.cookie })
        if (!sameToken(token, options.token)) {
          return Effect.succeed(apiError(401, "unauthorized", "this needs the orch dashboard token: open the URL `orch start` printed"))
        }
        if (request.method === "POST" && !originAllowed(request.headers.origin, request.headers.host, options.port)) {
          return Effect.succeed(apiError(403, "forbidden", "actions are accepted only from the dashboard's own page"))
        }
        return handler
      })
    const param = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")
    /** An action on the session in the path: its result as JSON, or its failure as an ApiError. */
    const action = <A, I, R>(schema: Schema.Codec<A, I>, run: (sessionId: string) => Effect.Effect<A, unknown, R>) =>
      guarded(Effect.flatMap(param("id"), (sessionId) =>
        run(sessionId).pipe(
          Effect.map((result) => json(schema, result)),
          Effect.catch((error) => Effect.succeed(failed(error)))
        )))
    const body = <A, I>(schema: Schema.Codec<A, I>) =>
      HttpServerRequest.schemaBodyJson(schema).pipe(
        Effect.mapError((error) => new BadRequest({ reason: (error.message || String(error)).split("\n")[0]! }))
      )

    const csp = contentSecurityPolicy(options.terminalPort)
    const page = guarded(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://x")
      // The token came in the URL: keep it in a cookie, and take it out of the address bar (and history).
      if (url.searchParams.has("token")) {
        url.searchParams.delete("token")
        return yield* HttpServerResponse.setCookie(
          HttpServerResponse.redirect(url.pathname + url.search, { status: 302, headers: PAGE_HEADERS }),
          COOKIE,
          options.token,
          { httpOnly: true, sameSite: "strict", path: "/" }
        )
      }
      return assets.has("app.js") ? htmlPage(renderPage(yield* boot), csp) : htmlPage(unbuiltPage, csp, 503)
    }))
    yield* router.add("GET", "/", page)
    yield* router.add("GET", "/sessions/:id", page)

    yield* router.add(
      "GET",
      "/assets/*",
      guarded(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const asset = assets.get(yield* param("*"))
        if (asset === undefined) return apiError(404, "not_found", "no such file")
        const headers = { etag: asset.etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" }
        return request.headers["if-none-match"] === asset.etag
          ? HttpServerResponse.empty({ status: 304, headers })
          : HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
      }))
    )

    // Sessions as every list shows them: a spawn whose process died half-way is `interrupted` (src/store/spawner.ts), a
    // live one whose project left the config `unwatched` (src/domain/live.ts).
    yield* router.add(
      "GET",
      "/api/sessions",
      guarded(Effect.flatMap(store.list, ({ records }) => Effect.map(Effect.forEach(records, shown), (views) => json(Schema.Array(SessionRecord), views))))
    )
    yield* router.add(
      "GET",
      "/api/sessions/:id",
      guarded(Effect.flatMap(param("id"), (id) =>
        store.read(id).pipe(
          Effect.flatMap(shown),
          Effect.map((record) => json(SessionRecord, record)),
          Effect.catch((error) => Effect.succeed(failed(error)))
        )))
    )
    yield* router.add(
      "GET",
      "/api/sessions/:id/events",
      guarded(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const limit = Number(new URL(request.url, "http://x").searchParams.get("limit") ?? TIMELINE_LIMIT)
        const id = yield* param("id")
        const timeline: Array<OrchEvent> = sessionEvents(
          events.path,
          id,
          Number.isInteger(limit) && limit > 0 ? Math.min(limit, TIMELINE_LIMIT) : TIMELINE_LIMIT
        )
        // A session orch never had is a 404, as for its record; one whose record is gone keeps its timeline.
        if (timeline.length > 0) return json(Schema.Array(OrchEvent), timeline)
        return yield* store.read(id).pipe(
          Effect.as(json(Schema.Array(OrchEvent), timeline)),
          Effect.catch((error) => Effect.succeed(failed(error)))
        )
      }))
    )
    yield* router.add(
      "GET",
      "/api/notifications",
      guarded(Effect.map(hub.inbox, (inbox) => json(InboxState, inbox)))
    )
    yield* router.add(
      "GET",
      "/api/events",
      guarded(Effect.succeed(HttpServerResponse.stream(
        Stream.concat(
          Stream.succeed("retry: 2000\n\n"),
          hub.stream.pipe(
            Stream.map(sseFrame),
            Stream.merge(Stream.tick("15 seconds").pipe(Stream.map(() => ": ping\n\n")), { haltStrategy: "left" }),
            Stream.interruptWhen(closing),
            Stream.concat(Stream.succeed(sseFrame({ kind: "stopping" })))
          )
        ).pipe(Stream.encodeText),
        { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } }
      )))
    )

    yield* router.add(
      "POST",
      "/api/sessions/:id/send",
      action(Sent, (sessionId) => body(SendRequest).pipe(Effect.flatMap(({ message }) => options.actions.send(sessionId, message)), Effect.as({ sent: true })))
    )
    yield* router.add("POST", "/api/sessions/:id/kill", action(Killed, options.actions.kill))
    yield* router.add("POST", "/api/sessions/:id/restore", action(SessionRecord, options.actions.restore))
    yield* router.add(
      "POST",
      "/api/sessions/:id/merge",
      action(Merged, (sessionId) =>
        Effect.map(
          options.actions.merge(sessionId),
          ({ prNumber, train }) => (train === undefined ? { merged: true, prNumber } : { merged: false, prNumber, train })
        ))
    )
    yield* router.add(
      "POST",
      "/api/sessions/:id/open",
      action(Opened, (sessionId) =>
        Effect.flatMap(store.read(sessionId), (record): Effect.Effect<typeof Opened.Type, SessionNotRunning | OpenFailed> =>
          existsSync(record.workspacePath)
            ? Effect.as(openOnThisMachine(record.workspacePath), { opened: record.workspacePath })
            : Effect.fail(new SessionNotRunning({ sessionId, state: `its worktree ${record.workspacePath} is gone` }))))
    )
    yield* router.add(
      "POST",
      "/api/notifications/read",
      guarded(
        body(MarkReadRequest).pipe(
          Effect.flatMap((request) =>
            request.all === true ? options.inbox.markAllRead() : options.inbox.markRead(request.ids ?? [])
          ),
          Effect.andThen(hub.inboxChanged),
          Effect.andThen(hub.inbox),
          Effect.map((inbox) => json(InboxState, inbox)),
          Effect.catch((error) => Effect.succeed(failed(error)))
        )
      )
    )

    // Any other API path: the same failure shape as every other, not an empty 404.
    yield* router.add(
      "*",
      "/api/*",
      guarded(Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
        apiError(404, "not_found", `there is no ${request.method} ${new URL(request.url, "http://x").pathname} in the API; docs/dashboard.md lists its calls`)))
    )

    const deliveries = new Set<string>()
    yield* router.add(
      "POST",
      "/webhooks/repohost",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // The raw bytes: the signature is checked over exactly what was sent, before anything reads it.
        const body = new Uint8Array(yield* request.arrayBuffer)
        const outcome = receive(yield* options.webhooks, deliveries, {
          ...(request.headers["x-github-event"] !== undefined ? { event: request.headers["x-github-event"] } : {}),
          ...(request.headers["x-github-delivery"] !== undefined ? { delivery: request.headers["x-github-delivery"] } : {}),
          ...(request.headers["x-hub-signature-256"] !== undefined ? { signature: request.headers["x-hub-signature-256"] } : {})
        }, body)
        switch (outcome.status) {
          case 202:
            // Answered at once, as GitHub wants; the look at the PR goes on after (and coalesces a burst of deliveries).
            yield* Effect.forkDetach(options.onBranchChanged(outcome.repo, outcome.branch))
            return json(WebhookAccepted, { accepted: `${outcome.repo} ${outcome.branch}` }, 202)
          case 200:
            return json(WebhookIgnored, { message: outcome.message })
          default:
            return apiError(outcome.status, outcome.error, outcome.message)
        }
      }).pipe(Effect.catchTag("HttpServerError", () =>
        Effect.succeed(apiError(400, "bad_body", "the delivery's body could not be read"))))
    )
  }))

/** How long the requests under way get to finish as the dashboard stops. */
const GRACE_MS = 1000

/**
 * The HTTP server under the dashboard. As it stops, the requests under way get a second to finish; then every
 * connection still open is closed (connections.ts says why Node's own `close` leaves some), and said to be.
 */
const httpServer = (options: DashboardOptions, server: ClosingServer) =>
  Layer.unwrap(Effect.gen(function*() {
    const connections = trackConnections(server)
    let closingSince: number | undefined
    server.onClosing(() => void (closingSince = Date.now()))
    // Added before the server's layer is built, so run after it has stopped: after the requests' grace.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const cut = connections.closeAll()
        // A request that held the stop for the whole grace is worth a line: something answers without end.
        const waited = closingSince === undefined ? 0 : Date.now() - closingSince
        return waited < GRACE_MS ? Effect.void : Effect.logWarning(
          `the dashboard's stop waited out its ${GRACE_MS / 1000} s grace for requests under way; ${cut} connection(s) were still open and are closed`
        )
      })
    )
    return NodeHttpServer.layer(() => server, { port: options.port, host: options.host, gracefulShutdownTimeout: GRACE_MS })
  }))

/** The dashboard's HTTP side: its routes on its server, the live streams ending as the server starts to close. */
const httpLayer = (options: DashboardOptions) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = new ClosingServer()
    const closing = yield* Latch.make(false)
    server.onClosing(() => void closing.openUnsafe())
    return HttpRouter.serve(routes(options, closing.await), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(httpServer(options, server))
    )
  }))

/** The dashboard as a Layer: the HTTP server and both terminal sockets, listening while the layer lives. */
export const dashboardLayer = (options: DashboardOptions) =>
  Layer.mergeAll(
    httpLayer(options).pipe(
      Layer.catchTag("ServeError", (error) =>
        Layer.effectDiscard(
          Effect.fail(new ListenFailed({ option: "port", host: options.host, port: options.port, reason: listenReason(error.cause, "port") }))
        ))
    ),
    terminalsLayer({
      host: options.host,
      port: options.terminalPort,
      directPort: options.directTerminalPort,
      dashboardPort: options.port,
      token: options.token,
      terminalOf: options.terminalOf
    })
  )
