/** The dashboard page: the header, the board or a session page, the inbox drawer; all live from one stream. */
import "@xterm/xterm/css/xterm.css"
import "./app.css"
import type { Boot } from "../api.ts"
import { boardView } from "./board-view.ts"
import { h, refreshTimes } from "./dom.ts"
import { header } from "./header.ts"
import { inboxDrawer } from "./inbox.ts"
import { currentRoute, interceptLinks, onNavigate } from "./router.ts"
import { sessionView } from "./session-view.ts"
import { createState } from "./state.ts"

const boot = JSON.parse(document.getElementById("orch-boot")!.textContent!) as Boot
const store = createState()

const toasts = h("div.toasts", { role: "status", "aria-live": "polite" })
const toast = (text: string, bad = false) => {
  const note = h("div.toast", { "data-tone": bad ? "bad" : "good" }, text)
  toasts.appendChild(note)
  setTimeout(() => note.remove(), bad ? 8000 : 3000)
}

const inbox = inboxDrawer(store, toast)
const top = header(store, boot, () => inbox.toggle())
const view = h("main.view")
document.getElementById("app")!.replaceChildren(top.element, view, inbox.drawer, toasts)

let leave: () => void = () => {}
const show = () => {
  leave()
  const route = currentRoute()
  document.title = route.page === "session" ? `${route.sessionId} · orch` : "orch"
  leave = route.page === "session"
    ? sessionView(store, boot, view, route.sessionId, toast)
    : boardView(store, view, route.project, route.host)
  top.draw()
  window.scrollTo(0, 0)
}

interceptLinks()
onNavigate(show)
show()
store.connect()
// Relative times ("5m ago") are kept current here, in the page; nothing is asked of the server for it.
setInterval(() => refreshTimes(), 15_000)
