/**
 * A session's page: its live terminal, what it is doing, its pull request (checks with links, review threads),
 * its predicted conflicts with other branches (with the files), the reactions orch ran and escalations, its event timeline, and what a person can do: send a message, kill,
 * restore, merge (when allowed), open the worktree.
 */
import { conflictsOf } from "../../domain/conflict-sides.ts"
import type { ConflictPrediction } from "../../domain/conflict.ts"
import type { OrchEvent } from "../../domain/event.ts"
import { isLive, UNWATCHED_HINT } from "../../domain/live.ts"
import type { SessionRecord } from "../../domain/session.ts"
import type { Boot, Merged } from "../api.ts"
import { canKill, canMerge, canRestore, concerns, isEscalated } from "../board.ts"
import { issueTitle, prLine, statusPill } from "./board-view.ts"
import { h, replaceChildren, time, words } from "./dom.ts"
import { get, post } from "./http.ts"
import type { Store } from "./state.ts"
import type { MountedTerminal, TerminalStatus } from "./terminal.ts"

const TIMELINE_SHOWN = 200
const STATUS_TEXT: Readonly<Record<TerminalStatus, string>> = {
  connecting: "connecting…",
  connected: "live",
  disconnected: "disconnected — reconnecting…",
  ended: "terminal ended — reconnecting…",
  none: "no live terminal"
}

const panel = (title: string, ...children: ReadonlyArray<Node | null>) => h("section.panel", { "aria-label": title }, h("h2", {}, title), ...children)

const eventKey = (e: OrchEvent) => `${e.timestamp}|${e.type}|${e.message ?? ""}|${JSON.stringify(e.data ?? {})}`

const eventDetail = (e: OrchEvent): string => {
  const data = e.data ?? {}
  const parts = [
    e.reaction !== undefined ? `${e.reaction} → ${e.action ?? ""}` : undefined,
    typeof data.attempt === "number" ? `attempt ${data.attempt}` : undefined,
    typeof data.failed === "string" ? `failed: ${data.failed}` : undefined,
    e.message
  ]
  return parts.filter((p): p is string => p !== undefined && p !== "").join(" · ")
}

const timelineItem = (e: OrchEvent) =>
  h(
    "li.event",
    {
      "data-type": e.type,
      "data-tone": e.type.includes("fail") || e.type.includes("escalat") || e.type === "session.stuck" || e.type === "session.exited"
        ? "bad"
        : e.type.startsWith("reaction.")
        ? "warn"
        : "muted"
    },
    h("span.event-type", {}, e.type),
    h("span.event-detail", {}, eventDetail(e)),
    time(e.timestamp)
  )

const prPanel = (record: SessionRecord) => {
  if (record.pr === null) return panel("Pull request", h("p.muted", {}, "No pull request yet."))
  const failing = record.failingChecks ?? []
  const comments = record.reviewComments ?? []
  return panel(
    "Pull request",
    h("div.pr-line", {}, prLine(record)),
    record.mergeable === false ? h("p", { "data-tone": "warn" }, "Has merge conflicts.") : null,
    failing.length === 0 ? null : h(
      "ul.checks",
      { "aria-label": "Failing checks" },
      failing.map((check) =>
        h(
          "li",
          { "data-tone": "bad" },
          check.url ? h("a", { href: check.url, target: "_blank", rel: "noopener" }, check.name) : check.name,
          check.summary ? h("span.muted", {}, ` — ${check.summary}`) : null
        )
      )
    ),
    comments.length === 0 ? null : h(
      "ul.threads",
      { "aria-label": "Review threads" },
      comments.map((c) =>
        h(
          "li.thread",
          {},
          h(
            "div.thread-head",
            {},
            h("b", {}, c.author),
            c.path ? h("code", {}, `${c.path}${c.line !== undefined ? `:${c.line}` : ""}`) : null,
            c.url ? h("a", { href: c.url, target: "_blank", rel: "noopener" }, "view") : null
          ),
          h("div.thread-body", {}, c.body)
        )
      )
    )
  )
}

const reactionsPanel = (record: SessionRecord, timeline: ReadonlyArray<OrchEvent>) => {
  const reactions = Object.entries(record.reactions ?? {})
  const runs = timeline.filter((e) => e.type === "reaction.triggered" || e.type === "reaction.escalated" || e.type === "supervisor.escalated").slice(-10)
    .reverse()
  return panel(
    "Reactions",
    reactions.length === 0 && runs.length === 0 ? h("p.muted", {}, "None so far.") : null,
    reactions.length === 0 ? null : h(
      "ul.reactions",
      {},
      reactions.map(([key, r]) =>
        h(
          "li",
          { "data-reaction": key, "data-tone": r.escalated === true ? "bad" : "muted" },
          h("b", {}, key),
          ` ${r.attempts} attempt${r.attempts === 1 ? "" : "s"} since `,
          time(r.firstTriggeredAt, " ago"),
          r.escalated === true ? h("span.pill", { "data-tone": "bad" }, "escalated") : null
        )
      )
    ),
    runs.length === 0 ? null : h("ol.timeline.compact", {}, runs.map(timelineItem))
  )
}

/** The session's predicted conflicts, each with whom, its kind and the files. */
const conflictsPanel = (predictions: ReadonlyArray<ConflictPrediction>, sessionId: string) => {
  const conflicts = conflictsOf(predictions, sessionId)
  return conflicts.length === 0 ? null : panel(
    "Predicted conflicts",
    h(
      "ul.conflicts",
      {},
      conflicts.map((c) =>
        h(
          "li",
          { "data-with": c.with, "data-kind": c.kind, "data-tone": c.kind === "conflict" ? "bad" : "warn" },
          h("b", {}, c.kind === "conflict" ? `conflicts with ${c.with}` : `overlaps ${c.with}`),
          c.kind === "conflict" ? " (would not merge cleanly)" : " (both change these files; they merge cleanly)",
          h("ul.files", {}, c.files.map((file) => h("li", {}, h("code", {}, file))))
        )
      )
    )
  )
}

export const sessionView = (store: Store, boot: Boot, root: HTMLElement, sessionId: string, toast: (text: string, bad?: boolean) => void) => {
  const { state } = store
  const head = h("div.session-head")
  const prBox = h("div.pr-box")
  const reactionsBox = h("div.reactions-box")
  const conflictsBox = h("div.conflicts-box")
  const terminalHost = h("div.terminal-host")
  const terminalStatus = h("span.terminal-status", { "data-status": "none" })
  const readOnly = h("input", { type: "checkbox", "data-action": "read-only" }) as HTMLInputElement
  const timelineList = h("ol.timeline", { "aria-label": "Timeline" })
  const message = h("textarea", { rows: 2, placeholder: "Message to the agent…", "aria-label": "Message to the agent", name: "message" }) as HTMLTextAreaElement
  const buttons = h("div.buttons")
  const timeline: Array<OrchEvent> = []
  const seen = new Set<string>()
  let timelineLoaded = false
  const early: Array<OrchEvent> = []

  /** Runs an action; `label` is the toast, or made from the answer (a merge in a project with a merge train joins it). */
  const act = async (label: string | ((answer: unknown) => string), path: string, body?: unknown) => {
    try {
      const answer = await post(path, body)
      toast(typeof label === "string" ? label : label(answer))
      return true
    } catch (error) {
      toast((error as Error).message, true)
      return false
    }
  }
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`
  const sendForm = h(
    "form.send",
    {
      onsubmit: async (event: Event) => {
        event.preventDefault()
        const text = message.value.trim()
        if (text === "") return
        const submit = sendForm.querySelector("button")!
        submit.toggleAttribute("disabled", true)
        if (await act("Sent.", `${base}/send`, { message: text })) message.value = ""
        submit.toggleAttribute("disabled", false)
      }
    },
    message,
    h("button.button.primary", { type: "submit", "data-action": "send" }, "Send")
  ) as HTMLFormElement
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) sendForm.requestSubmit()
  })

  // Built once and kept: a redraw must not take the message being typed, or the focus, away.
  const actions = panel("Actions", sendForm, buttons)

  /** A button that asks for a second click before it does something that cannot be undone. */
  const confirmed = (label: string, action: string, run: () => void) => {
    const button = h("button.button.danger", { type: "button", "data-action": action }, label)
    let armed: ReturnType<typeof setTimeout> | undefined
    button.addEventListener("click", () => {
      if (armed === undefined) {
        button.textContent = `Really ${label.toLowerCase()}?`
        armed = setTimeout(() => {
          armed = undefined
          button.textContent = label
        }, 4000)
        return
      }
      clearTimeout(armed)
      run()
    })
    return button
  }

  const mergedLabel = (answer: unknown) => {
    const position = (answer as Partial<typeof Merged.Type> | undefined)?.train?.position
    return position === undefined ? "Merged." : `Joined the merge train at position ${position}.`
  }

  const drawButtons = (record: SessionRecord) => {
    replaceChildren(
      buttons,
      canMerge(record)
        ? h(
          "button.button.primary",
          { type: "button", "data-action": "merge", onclick: () => act(mergedLabel, `${base}/merge`) },
          `Merge PR #${record.pr!.number}`
        )
        : null,
      canRestore(record)
        ? h("button.button", { type: "button", "data-action": "restore", onclick: () => act("Restored.", `${base}/restore`) }, "Restore")
        : null,
      canKill(record) ? confirmed("Kill", "kill", () => act("Killed.", `${base}/kill`)) : null,
      h(
        "button.button",
        { type: "button", "data-action": "open", title: record.workspacePath, onclick: () => act("Opened the worktree.", `${base}/open`) },
        "Open worktree"
      ),
      h("button.button", {
        type: "button",
        "data-action": "copy-path",
        onclick: () => navigator.clipboard.writeText(record.workspacePath).then(() => toast("Path copied."), () => toast(record.workspacePath))
      }, "Copy path")
    )
  }

  const draw = () => {
    const record = state.sessions.get(sessionId)
    actions.hidden = record === undefined
    if (record === undefined) {
      replaceChildren(head, h("a.back", { href: "/" }, "← Board"), h("h1", {}, state.loaded ? `No session ${sessionId}` : "Loading…"))
      replaceChildren(prBox)
      replaceChildren(reactionsBox)
      replaceChildren(conflictsBox)
      return
    }
    replaceChildren(
      head,
      h("a.back", { href: "/" }, "← Board"),
      h(
        "h1",
        {},
        h("span.session-id", {}, record.sessionId),
        statusPill(record),
        isEscalated(record) ? h("span.pill", { "data-tone": "bad" }, "escalated") : null
      ),
      h("div.issue-line", {}, record.role === "orchestrator" ? `Orchestrator of ${record.projectId}` : issueTitle(record)),
      record.status === "unwatched" ? h("div.unwatched", { "data-tone": "warn" }, `Unwatched: ${UNWATCHED_HINT}.`) : null,
      h(
        "div.facts",
        {},
        h("code.branch", {}, record.branch),
        h("span", {}, `activity: ${words(record.activity)}`),
        h("span", {}, "created ", time(record.createdAt)),
        h("span", {}, `agent: ${record.agent.plugin}`),
        h("code.path", { title: "worktree" }, record.workspacePath)
      )
    )
    drawButtons(record)
    sendForm.hidden = !isLive(record)
    replaceChildren(prBox, record.role === undefined ? prPanel(record) : null)
    replaceChildren(reactionsBox, record.role === undefined ? reactionsPanel(record, timeline) : null)
    replaceChildren(conflictsBox, record.role === undefined ? conflictsPanel(state.conflicts, sessionId) : null)
    syncTerminal(record)
  }

  // The terminal: mounted while the session has a live one, again whenever that changes (restore, read-only).
  let mounted: MountedTerminal | undefined
  let mountedKey = ""
  const setTerminalStatus = (status: TerminalStatus, detail: string) => {
    terminalStatus.dataset.status = status
    terminalHost.dataset.terminalStatus = status
    terminalStatus.textContent = detail !== "" && (status === "none" || status === "ended") ? `${STATUS_TEXT[status]}: ${detail}` : STATUS_TEXT[status]
  }
  const syncTerminal = (record: SessionRecord) => {
    const live = isLive(record) && record.runtime !== null
    const key = live ? `${record.runtime!.plugin}:${record.runtime!.id}:${JSON.stringify(record.runtime!.data)}:${readOnly.checked}` : ""
    if (key === mountedKey) return
    mountedKey = key
    mounted?.dispose()
    mounted = undefined
    terminalHost.replaceChildren()
    if (!live) {
      setTerminalStatus("none", `the session is ${words(record.status)}`)
      return
    }
    const scheme = location.protocol === "https:" ? "wss" : "ws"
    import("./terminal.ts").then(({ mountTerminal }) => {
      if (mountedKey !== key) return
      mounted = mountTerminal(terminalHost, {
        readOnly: readOnly.checked,
        onStatus: setTerminalStatus,
        url: ({ cols, rows }) =>
          `${scheme}://${location.hostname}:${boot.terminalPort}/terminal/${encodeURIComponent(sessionId)}?cols=${cols}&rows=${rows}${
            readOnly.checked ? "&mode=read" : ""
          }`
      })
    })
  }
  readOnly.addEventListener("change", () => {
    const record = state.sessions.get(sessionId)
    if (record !== undefined) syncTerminal(record)
  })

  const addEvents = (events: ReadonlyArray<OrchEvent>) => {
    const fresh = events.filter((e) => !seen.has(eventKey(e)))
    for (const e of fresh) seen.add(eventKey(e))
    timeline.push(...fresh)
    for (const e of fresh) timelineList.prepend(timelineItem(e))
    while (timelineList.children.length > TIMELINE_SHOWN) timelineList.lastElementChild!.remove()
  }

  replaceChildren(
    root,
    h(
      "div.session-page",
      { "data-session": sessionId },
      head,
      h(
        "div.session-grid",
        {},
        h(
          "section.terminal-panel",
          { "aria-label": "Terminal" },
          h("div.terminal-bar", {}, h("h2", {}, "Terminal"), terminalStatus, h("label.read-only", {}, readOnly, " read-only")),
          terminalHost
        ),
        h("div.side-panels", {}, actions, prBox, conflictsBox, reactionsBox)
      ),
      h("section.panel.timeline-panel", { "aria-label": "Timeline" }, h("h2", {}, "Timeline"), timelineList)
    )
  )
  draw()

  get<ReadonlyArray<OrchEvent>>(`${base}/events`).then((events) => {
    addEvents(events)
    addEvents(early)
    timelineLoaded = true
    draw()
  }, (error) => toast(`timeline: ${(error as Error).message}`, true))

  const unsubscribe = store.subscribe((change) => {
    if (change.kind === "snapshot" || change.kind === "conflicts" || (change.kind === "session" && change.sessionId === sessionId)) draw()
    if (change.kind === "event" && concerns(change.event, sessionId)) {
      if (!timelineLoaded) early.push(change.event)
      else {
        addEvents([change.event])
        if (change.event.type.startsWith("reaction.") || change.event.type === "supervisor.escalated") draw()
      }
    }
  })
  return () => {
    unsubscribe()
    mounted?.dispose()
    mountedKey = ""
  }
}
