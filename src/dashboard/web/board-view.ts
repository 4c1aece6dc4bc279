/**
 * The board: sessions grouped by what they need from a person, with counts, filtered by project. Each card is
 * redrawn on its own when its record or last event changes, and moved when its group does.
 */
import { conflictsOf } from "../../domain/conflict-sides.ts"
import type { ConflictPrediction } from "../../domain/conflict.ts"
import type { OrchEvent } from "../../domain/event.ts"
import { UNWATCHED_HINT } from "../../domain/live.ts"
import type { CheckState, ReviewState, SessionRecord } from "../../domain/session.ts"
import { byNewest, countGroups, type Group, groupOf, GROUPS, isEscalated, toneOf } from "../board.ts"
import { sessionPath } from "../urls.ts"
import { h, replaceChildren, time, words } from "./dom.ts"
import { navigate } from "./router.ts"
import type { Store } from "./state.ts"

const CHECKS: Readonly<Record<CheckState, string>> = { passing: "✓ CI passing", failing: "✗ CI failing", pending: "◌ CI running" }
const REVIEWS: Readonly<Record<ReviewState, string>> = { approved: "✓ approved", changes_requested: "✎ changes requested", pending: "awaiting review" }

/** The PR line: number (linked), state, CI, review. */
export const prLine = (record: SessionRecord) =>
  record.pr === null
    ? h("span.muted", {}, "no PR yet")
    : h(
      "span.pr",
      {},
      h("a", { href: record.pr.url, target: "_blank", rel: "noopener" }, `PR #${record.pr.number}`),
      record.pr.state !== "open" ? h("span", { "data-tone": record.pr.state === "merged" ? "good" : "muted" }, ` ${record.pr.state}`) : null,
      record.checks
        ? h("span.check", { "data-tone": record.checks === "passing" ? "good" : record.checks === "failing" ? "bad" : "warn" }, CHECKS[record.checks])
        : null,
      record.review
        ? h(
          "span.review",
          { "data-tone": record.review === "approved" ? "good" : record.review === "changes_requested" ? "warn" : "muted" },
          REVIEWS[record.review]
        )
        : null
    )

export const statusPill = (record: SessionRecord) =>
  h(
    "span.pill",
    { "data-tone": toneOf(record.status), "data-status": record.status, ...(record.status === "unwatched" ? { title: UNWATCHED_HINT } : {}) },
    words(record.status)
  )

/** The issue's title and number (linked to the issue when its URL is known); a task's title, marked as a task. */
export const issueTitle = (record: SessionRecord) => {
  if (record.task !== undefined) return h("span.issue", { title: `task ${record.issueId}` }, h("span.issue-link.muted", {}, "Task"), " ", record.task.title)
  const number = record.issue?.url
    ? h("a.issue-link", { href: record.issue.url, target: "_blank", rel: "noopener" }, `#${record.issueId}`)
    : h("span.issue-link.muted", {}, `#${record.issueId}`)
  return record.issue === undefined ? h("span.issue", {}, "Issue ", number) : h("span.issue", {}, record.issue.title, " ", number)
}

const lastEventLine = (event: OrchEvent | undefined) =>
  event === undefined
    ? null
    : h("div.last", { title: event.message ?? event.type }, h("span.event-type", {}, event.type), " · ", time(event.timestamp))

/** The session's predicted conflicts: a conflict (bad) or an overlap (warn) with each other side, its files in the title. */
export const conflictsLine = (predictions: ReadonlyArray<ConflictPrediction>, sessionId: string) => {
  const conflicts = conflictsOf(predictions, sessionId)
  return conflicts.length === 0 ? null : h(
    "div.meta.conflicts",
    {},
    conflicts.map((c) =>
      h(
        "span.conflict",
        { "data-tone": c.kind === "conflict" ? "bad" : "warn", "data-with": c.with, "data-kind": c.kind, title: c.files.join(", ") },
        c.kind === "conflict" ? `⚠ conflicts with ${c.with}` : `overlaps ${c.with}`
      )
    )
  )
}

const card = (record: SessionRecord, last: OrchEvent | undefined, predictions: ReadonlyArray<ConflictPrediction>) => {
  const href = sessionPath(record.sessionId)
  return h(
    "article.card",
    {
      "data-session": record.sessionId,
      "data-status": record.status,
      "data-group": groupOf(record),
      onclick: (event: Event) => {
        if ((event.target as Element).closest("a") === null) navigate(href)
      }
    },
    h(
      "div.card-top",
      {},
      h("a.session-id", { href }, record.sessionId),
      statusPill(record),
      isEscalated(record) ? h("span.pill", { "data-tone": "bad" }, "escalated") : null,
      h("span.age", { title: `created ${new Date(record.createdAt).toLocaleString()}` }, time(record.createdAt, ""))
    ),
    h("div.title", {}, issueTitle(record)),
    h(
      "div.meta",
      {},
      h("code.branch", {}, record.branch),
      h("span", {}, `activity: ${words(record.activity)}`),
      record.host !== undefined && record.host !== "local" ? h("span.host", { title: "the machine it runs on" }, `on ${record.host}`) : null
    ),
    h("div.meta", {}, prLine(record)),
    limitLine(record),
    conflictsLine(predictions, record.sessionId),
    lastEventLine(last)
  )
}

/** A rate-limited agent: what its provider said, and when orch tells it to continue (in the viewer's time), or that it retries by itself. */
const limitLine = (record: SessionRecord) =>
  record.activity !== "rate_limited" || record.rateLimit === undefined ? null : h(
    "div.meta.limit",
    { title: record.rateLimit.message ?? "" },
    record.rateLimit.retrying === true
      ? "it retries by itself"
      : `orch tells it to continue at ${new Date(record.rateLimit.continueAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`
  )

/** Whether a session runs on `host` (a record that names none runs here, on local). */
export const onHost = (record: SessionRecord, host: string | undefined) => host === undefined || (record.host ?? "local") === host

export const boardView = (store: Store, root: HTMLElement, project: string | undefined, host: string | undefined) => {
  const { state } = store
  const shown = (record: SessionRecord) => record.role === undefined && (project === undefined || record.projectId === project) && onHost(record, host)
  const lists = new Map<Group, HTMLElement>()
  const counts = new Map<Group, HTMLElement>()
  const cards = new Map<string, HTMLElement>()
  const orchestrators = h("nav.orchestrators", { "aria-label": "Orchestrators" })
  const queue = h("section.queue", { "aria-label": "Queue" })
  const train = h("section.train", { "aria-label": "Merge train" })

  const sections = GROUPS.map(({ key, title, hint }) => {
    const list = h("div.cards", { "data-list": key })
    const count = h("span.count", { "data-count": key }, "0")
    lists.set(key, list)
    counts.set(key, count)
    return h("section.group", { "data-group": key, "aria-label": title }, h("header", { title: hint }, h("h2", {}, title), count), list)
  })
  replaceChildren(root, h("div.board-page", {}, orchestrators, queue, train, h("div.board", {}, sections)))

  /** Queued work (not yet placed on any host): its place, what it is for, and what it waits on. */
  const drawQueue = () => {
    const entries = state.queue.filter((entry) => project === undefined || entry.projectId === project)
    queue.hidden = entries.length === 0
    replaceChildren(
      queue,
      entries.length === 0 ? null : [
        h(
          "header",
          { title: "Work waiting to start: orch starts each entry when every budget allows (docs/queue.md)" },
          h("h2", {}, "Queued"),
          h("span.count", {}, String(entries.length))
        ),
        h(
          "ol",
          {},
          entries.map((entry) =>
            h(
              "li",
              { "data-entry": entry.id },
              h("span.position", {}, `${entry.position}.`),
              h("span.entry", {}, `${entry.projectId} ${entry.label}`),
              entry.priority !== 0 ? h("span.priority", {}, `priority ${entry.priority}`) : null,
              h("span.waiting", {}, entry.waiting)
            )
          )
        )
      ]
    )
  }

  /** Each project's merge train: the cars in the order they will merge, and what each waits on. */
  const drawTrain = () => {
    const cars = state.train.filter((car) => project === undefined || car.projectId === project)
    train.hidden = cars.length === 0
    replaceChildren(
      train,
      cars.length === 0 ? null : [
        h(
          "header",
          { title: "Approved and green PRs, merged one at a time on the default branch as it is (docs/supervisor.md, Merge train)" },
          h("h2", {}, "Merge train"),
          h("span.count", {}, String(cars.length))
        ),
        h(
          "ol",
          {},
          cars.map((car) =>
            h(
              "li",
              { "data-car": car.sessionId },
              h("span.position", {}, `${car.position}.`),
              h("a.entry", { href: sessionPath(car.sessionId) }, `${car.projectId} ${car.sessionId} PR #${car.prNumber}`),
              h("span.waiting", {}, car.waitingOn)
            )
          )
        )
      ]
    )
  }

  const drawOrchestrators = () => {
    const records = [...state.sessions.values()].filter((r) => r.role === "orchestrator" && (project === undefined || r.projectId === project))
    replaceChildren(
      orchestrators,
      records.length === 0
        ? null
        : [
          h("span.label", {}, "Orchestrator"),
          records.map((r) => h("a.orchestrator", { href: sessionPath(r.sessionId), "data-session": r.sessionId }, r.sessionId, statusPill(r)))
        ]
    )
  }

  const drawCounts = () => {
    const all = countGroups([...state.sessions.values()].filter(shown))
    for (const [group, element] of counts) element.textContent = String(all[group])
    for (const [group, list] of lists) list.classList.toggle("empty", all[group] === 0)
  }

  /** Puts a card in its group's list, in order (newest first). */
  const place = (record: SessionRecord, element: HTMLElement) => {
    const list = lists.get(groupOf(record))!
    const next = [...list.children].find((other) => {
      const otherRecord = state.sessions.get((other as HTMLElement).dataset.session ?? "")
      return otherRecord !== undefined && other !== element && byNewest(record, otherRecord) < 0
    })
    if (element.parentElement !== list || element.nextElementSibling !== (next ?? null)) list.insertBefore(element, next ?? null)
  }

  const drawSession = (sessionId: string) => {
    const record = state.sessions.get(sessionId)
    const old = cards.get(sessionId)
    if (record === undefined || !shown(record)) {
      old?.remove()
      cards.delete(sessionId)
    } else {
      const element = card(record, state.lastEvents.get(sessionId), state.conflicts)
      if (old !== undefined) old.replaceWith(element)
      cards.set(sessionId, element)
      place(record, element)
    }
    drawCounts()
  }

  const drawAll = () => {
    for (const list of lists.values()) list.replaceChildren()
    cards.clear()
    const records = [...state.sessions.values()].filter(shown).sort(byNewest)
    for (const record of records) {
      const element = card(record, state.lastEvents.get(record.sessionId), state.conflicts)
      cards.set(record.sessionId, element)
      lists.get(groupOf(record))!.appendChild(element)
    }
    drawCounts()
    drawOrchestrators()
    drawQueue()
    drawTrain()
    root.dataset.loaded = String(state.loaded)
  }

  drawAll()
  const unsubscribe = store.subscribe((change) => {
    if (change.kind === "snapshot" || change.kind === "conflicts") drawAll()
    else if (change.kind === "queue") drawQueue()
    else if (change.kind === "train") drawTrain()
    else if (change.kind === "session") {
      if (state.sessions.get(change.sessionId)?.role === "orchestrator") drawOrchestrators()
      else drawSession(change.sessionId)
    } else if (change.kind === "event" && change.event.sessionId !== undefined && cards.has(change.event.sessionId)) {
      drawSession(change.event.sessionId)
    }
  })
  return unsubscribe
}
