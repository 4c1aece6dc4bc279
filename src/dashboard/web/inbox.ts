/**
 * The notifications inbox (the `hosted` notifier): a drawer listing what orch told people, newest first, with
 * mark-as-read; and, with the browser's permission, a system notification for each new urgent or action one.
 */
import type { InboxEntry, InboxState } from "../api.ts"
import { sessionPath } from "../urls.ts"
import { h, replaceChildren, time } from "./dom.ts"
import { post } from "./http.ts"
import { navigate } from "./router.ts"
import type { Store } from "./state.ts"

const LOUD = new Set(["urgent", "action"])

const canNotify = () => "Notification" in window

/** Shows new urgent and action notifications as browser notifications, when allowed. */
export const notifyArrivals = (arrived: ReadonlyArray<InboxEntry>) => {
  if (!canNotify() || Notification.permission !== "granted") return
  for (const entry of arrived) {
    if (entry.read || !LOUD.has(entry.priority)) continue
    const shown = new Notification(entry.title, { body: entry.message, tag: entry.id })
    shown.onclick = () => {
      window.focus()
      if (entry.sessionId !== undefined) navigate(sessionPath(entry.sessionId))
    }
  }
}

export const inboxDrawer = (store: Store, toast: (text: string, bad?: boolean) => void) => {
  const list = h("ol.inbox-list")
  const permission = h("div.permission")
  const markAll = h("button.button", { type: "button", "data-action": "mark-all-read" }, "Mark all read")
  const drawer = h(
    "aside.drawer",
    { "aria-label": "Notifications", hidden: true },
    h(
      "header",
      {},
      h("h2", {}, "Notifications"),
      markAll,
      h("button.icon-button", { type: "button", "aria-label": "Close", onclick: () => toggle(false) }, "×")
    ),
    permission,
    list
  )

  const markRead = async (body: { readonly ids?: ReadonlyArray<string>; readonly all?: boolean }) => {
    try {
      store.setInbox(await post<InboxState>("/api/notifications/read", body))
    } catch (error) {
      toast((error as Error).message, true)
    }
  }
  markAll.addEventListener("click", () => markRead({ all: true }))

  const drawPermission = () => {
    if (!canNotify() || Notification.permission !== "default") return replaceChildren(permission)
    replaceChildren(
      permission,
      h("button.button", {
        type: "button",
        "data-action": "enable-notifications",
        onclick: () => Notification.requestPermission().then(drawPermission)
      }, "Show urgent notifications on this computer")
    )
  }

  const entry = (n: InboxEntry) =>
    h(
      "li.note",
      { "data-id": n.id, "data-priority": n.priority, "data-read": String(n.read) },
      h("span.dot", {
        "data-tone": n.priority === "urgent" ? "bad" : n.priority === "action" ? "warn" : n.priority === "warning" ? "info" : "muted",
        title: n.priority
      }),
      h(
        "div.note-body",
        {},
        h("div.note-title", {}, n.title),
        h("div.note-message", {}, n.message),
        h(
          "div.note-meta",
          {},
          h("span", {}, n.priority),
          n.sessionId !== undefined ? h("a", { href: sessionPath(n.sessionId), onclick: () => toggle(false) }, n.sessionId) : null,
          n.prUrl !== undefined ? h("a", { href: n.prUrl, target: "_blank", rel: "noopener" }, "PR") : null,
          time(n.timestamp)
        )
      ),
      n.read
        ? null
        : h("button.icon-button", {
          type: "button",
          "aria-label": "Mark read",
          title: "Mark read",
          "data-action": "mark-read",
          onclick: () => markRead({ ids: [n.id] })
        }, "✓")
    )

  const draw = () => {
    const { entries, unread } = store.state.inbox
    markAll.toggleAttribute("disabled", unread === 0)
    replaceChildren(list, entries.length === 0 ? h("li.empty-note", {}, "Nothing yet.") : entries.map(entry))
  }

  const toggle = (open = drawer.hidden) => {
    drawer.hidden = !open
    if (open) {
      draw()
      drawPermission()
    }
  }

  store.subscribe((change) => {
    if (change.kind === "inbox") notifyArrivals(change.arrived)
    if ((change.kind === "inbox" || change.kind === "snapshot") && !drawer.hidden) draw()
  })
  return { drawer, toggle }
}
