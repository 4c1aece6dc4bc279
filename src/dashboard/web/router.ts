/** The page's two places, `/` (the board, `?project=` and `?host=` to filter) and `/sessions/<id>`, without reloading. */

export type Route =
  | { readonly page: "board"; readonly project: string | undefined; readonly host: string | undefined }
  | { readonly page: "session"; readonly sessionId: string }

export const currentRoute = (): Route => {
  const match = /^\/sessions\/([^/]+)$/.exec(location.pathname)
  if (match !== null) return { page: "session", sessionId: decodeURIComponent(match[1]!) }
  const query = new URLSearchParams(location.search)
  return { page: "board", project: query.get("project") ?? undefined, host: query.get("host") ?? undefined }
}

/** The board's address with `project` and `host` as its filters. */
export const boardPath = (project: string | undefined, host: string | undefined) => {
  const query = new URLSearchParams([...(project !== undefined ? [["project", project]] : []), ...(host !== undefined ? [["host", host]] : [])])
  return query.size === 0 ? "/" : `/?${query.toString()}`
}

const NAVIGATED = "orch:navigate"

export const navigate = (href: string) => {
  if (href === location.pathname + location.search) return
  history.pushState(null, "", href)
  window.dispatchEvent(new Event(NAVIGATED))
}

export const onNavigate = (listener: () => void) => {
  window.addEventListener("popstate", listener)
  window.addEventListener(NAVIGATED, listener)
}

/** Clicks on the page's own links move within the page; other links (PRs, issues) behave as links do. */
export const interceptLinks = () =>
  document.addEventListener("click", (event) => {
    const link = (event.target as Element).closest("a")
    if (link === null || link.target !== "" || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const url = new URL(link.href)
    if (url.origin !== location.origin) return
    event.preventDefault()
    navigate(url.pathname + url.search)
  })
