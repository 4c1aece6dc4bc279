/**
 * The supervisor's HTTP server on `port` (127.0.0.1 only): a JSON API and a live event stream (Server-Sent
 * Events) that the dashboard page subscribes to once. Every request needs the per-install token: the URL
 * `orch start` prints carries it once, the page keeps it in an HttpOnly cookie; scripts send
 * `Authorization: Bearer <token>`.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import type { InboxShape } from "../plugins/notifier/inbox.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { renderPage } from "./page.ts"
import { sameToken } from "./token.ts"
import { receive, type WebhookProject } from "./webhooks.ts"

export interface DashboardOptions {
  readonly port: number
  readonly host: string
  readonly token: string
  readonly inbox: InboxShape
  /** Projects that receive repohost webhooks, and what to do with a delivery about a branch. */
  readonly webhooks: ReadonlyArray<WebhookProject>
  readonly onBranchChanged: (repo: string, branch: string) => Effect.Effect<void>
}

const COOKIE = "orch_token"

/** The request's token: `Authorization: Bearer`, the cookie, or `?token=` (the printed URL). */
const requestToken = (request: HttpServerRequest.HttpServerRequest) => {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
  return bearer ?? request.cookies[COOKIE] ?? new URL(request.url, "http://x").searchParams.get("token") ?? undefined
}

const unauthorized = HttpServerResponse.json({ error: "unauthorized", message: "this needs the orch dashboard token" }, { status: 401 })

const routes = (options: DashboardOptions) =>
  HttpRouter.use(Effect.fn(function*(router) {
    const store = yield* SessionStore
    const events = yield* EventLog
    const guarded = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R> =>
          sameToken(requestToken(request), options.token) ? handler : unauthorized
      )

    yield* router.add("GET", "/", guarded(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const page = HttpServerResponse.html(renderPage())
      // The token came in the URL: keep it in a cookie so it need not stay in the address bar.
      return new URL(request.url, "http://x").searchParams.has("token")
        ? yield* HttpServerResponse.setCookie(HttpServerResponse.redirect("/", { status: 302 }), COOKIE, options.token, { httpOnly: true, sameSite: "strict", path: "/" })
        : page
    })))
    const deliveries = new Set<string>()
    yield* router.add("POST", "/webhooks/repohost", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* request.text
      const outcome = receive(options.webhooks, deliveries, {
        ...(request.headers["x-github-event"] !== undefined ? { event: request.headers["x-github-event"] } : {}),
        ...(request.headers["x-github-delivery"] !== undefined ? { delivery: request.headers["x-github-delivery"] } : {}),
        ...(request.headers["x-hub-signature-256"] !== undefined ? { signature: request.headers["x-hub-signature-256"] } : {})
      }, body)
      if (outcome.status === 202) yield* options.onBranchChanged(outcome.repo, outcome.branch)
      return yield* HttpServerResponse.json(outcome.status === 202 ? { accepted: `${outcome.repo} ${outcome.branch}` } : { message: outcome.message }, { status: outcome.status })
    }))
    yield* router.add("GET", "/api/sessions", guarded(Effect.flatMap(store.list, ({ records }) => HttpServerResponse.json(records))))
    yield* router.add("GET", "/api/notifications", guarded(Effect.flatMap(options.inbox.list({ limit: 200 }), (entries) => HttpServerResponse.json(entries))))
    yield* router.add("GET", "/api/events", guarded(Effect.succeed(HttpServerResponse.stream(
      events.stream.pipe(
        Stream.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
        Stream.merge(Stream.tick("15 seconds").pipe(Stream.map(() => ": ping\n\n")), { haltStrategy: "left" }),
        Stream.encodeText
      ),
      { contentType: "text/event-stream", headers: { "cache-control": "no-cache" } }
    ))))
  }))

/** The server as a Layer: listening while the layer lives. */
export const dashboardLayer = (options: DashboardOptions) =>
  HttpRouter.serve(routes(options), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host, gracefulShutdownTimeout: "1 second" }))
  )
