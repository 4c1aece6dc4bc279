/** The bar on every page: home, the project and host filters, whether the page is live, the inbox's unread count, the theme. */
import type { Boot } from "../api.ts"
import { h } from "./dom.ts"
import { boardPath, currentRoute, navigate } from "./router.ts"
import type { Store } from "./state.ts"

const THEMES = ["auto", "light", "dark"] as const
type Theme = typeof THEMES[number]

const savedTheme = (): Theme => {
  const saved = localStorage.getItem("orch-theme")
  return saved === "light" || saved === "dark" ? saved : "auto"
}

const applyTheme = (theme: Theme) => {
  if (theme === "auto") {
    delete document.documentElement.dataset.theme
    localStorage.removeItem("orch-theme")
  } else {
    document.documentElement.dataset.theme = theme
    localStorage.setItem("orch-theme", theme)
  }
}

const SVG = "http://www.w3.org/2000/svg"

/** The inbox's bell, drawn (an emoji font may be missing). */
const bell = () => {
  const svg = document.createElementNS(SVG, "svg")
  svg.setAttribute("viewBox", "0 0 24 24")
  svg.setAttribute("width", "16")
  svg.setAttribute("height", "16")
  svg.setAttribute("aria-hidden", "true")
  const path = document.createElementNS(SVG, "path")
  path.setAttribute("d", "M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0")
  path.setAttribute("fill", "none")
  path.setAttribute("stroke", "currentColor")
  path.setAttribute("stroke-width", "2")
  path.setAttribute("stroke-linecap", "round")
  path.setAttribute("stroke-linejoin", "round")
  svg.appendChild(path)
  return svg
}

const CONNECTION_TEXT = {
  connecting: "connecting…",
  live: "live",
  disconnected: "disconnected — reconnecting…",
  stopped: "orch stopped — reconnecting once it runs again…",
  "signed-out": "signed out — open the dashboard address `orch start` printed"
} as const

export const header = (store: Store, boot: Boot, openInbox: () => void) => {
  const connection = h("span.connection", { role: "status", "aria-live": "polite" })
  const unread = h("span.badge", { id: "unread" })
  const theme = h("button.icon-button", { type: "button", "data-action": "theme" })
  const drawTheme = () => {
    const current = savedTheme()
    theme.textContent = current === "dark" ? "☾" : current === "light" ? "☀" : "◐"
    theme.title = `Theme: ${current} (click to change)`
    theme.setAttribute("aria-label", theme.title)
  }
  theme.addEventListener("click", () => {
    applyTheme(THEMES[(THEMES.indexOf(savedTheme()) + 1) % THEMES.length]!)
    drawTheme()
  })

  const filter = boot.projects.length > 1
    ? h(
      "select.project-filter",
      {
        "aria-label": "Project",
        onchange: (event: Event) => {
          const value = (event.target as HTMLSelectElement).value
          const route = currentRoute()
          navigate(boardPath(value === "" ? undefined : value, route.page === "board" ? route.host : undefined))
        }
      },
      h("option", { value: "" }, "All projects"),
      boot.projects.map((p) => h("option", { value: p.id }, p.name))
    ) as HTMLSelectElement
    : undefined

  const hostFilter = boot.hosts !== undefined
    ? h(
      "select.host-filter",
      {
        "aria-label": "Host",
        onchange: (event: Event) => {
          const value = (event.target as HTMLSelectElement).value
          const route = currentRoute()
          navigate(boardPath(route.page === "board" ? route.project : undefined, value === "" ? undefined : value))
        }
      },
      h("option", { value: "" }, "All hosts"),
      boot.hosts.map((name) => h("option", { value: name }, name))
    ) as HTMLSelectElement
    : undefined

  const draw = () => {
    const state = store.state
    connection.dataset.connection = state.connection
    connection.textContent = CONNECTION_TEXT[state.connection]
    unread.textContent = String(state.inbox.unread)
    unread.dataset.unread = String(state.inbox.unread)
    const route = currentRoute()
    if (filter !== undefined) filter.value = route.page === "board" ? route.project ?? "" : filter.value
    if (hostFilter !== undefined) hostFilter.value = route.page === "board" ? route.host ?? "" : hostFilter.value
  }

  drawTheme()
  draw()
  store.subscribe((change) => {
    if (change.kind === "connection" || change.kind === "inbox" || change.kind === "snapshot") draw()
  })
  const element = h(
    "header.topbar",
    {},
    h("a.brand", { href: "/", title: `orch ${boot.version}` }, h("span.logo", { "aria-hidden": "true" }), "orch"),
    filter,
    hostFilter,
    h("span.spacer"),
    connection,
    h("button.inbox-button", { type: "button", "data-action": "inbox", "aria-label": "Notifications", onclick: openInbox }, bell(), unread),
    theme
  )
  return { element, draw }
}
