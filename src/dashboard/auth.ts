/**
 * Who may talk to the dashboard: a request carries the per-install token (`Authorization: Bearer`, the
 * `orch_token` cookie the page keeps, or `?token=` once in the URL `orch start` prints), and a browser request
 * that changes something or opens a socket comes from the dashboard's own page (its Origin).
 */
export const COOKIE = "orch_token"

export interface RequestParts {
  readonly url: string
  readonly authorization?: string | undefined
  readonly cookie?: string | undefined
}

const cookieValue = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=")
    if (key === name) return decodeURIComponent(value.join("="))
  }
  return undefined
}

/** The token a request carries, from the first place that has one. */
export const requestToken = (request: RequestParts): string | undefined =>
  /^Bearer (.+)$/.exec(request.authorization ?? "")?.[1] ??
    cookieValue(request.cookie, COOKIE) ??
    new URL(request.url, "http://x").searchParams.get("token") ??
    undefined

/**
 * Whether a browser's `Origin` is the dashboard page: same host name as the request was sent to, on the
 * dashboard's port. No Origin means no browser (curl, scripts), which the token alone admits.
 */
export const originAllowed = (origin: string | undefined, hostHeader: string | undefined, dashboardPort: number): boolean => {
  if (origin === undefined) return true
  let from: URL
  let to: URL
  try {
    from = new URL(origin)
    to = new URL(`http://${hostHeader ?? ""}`)
  } catch {
    return false
  }
  const port = from.port === "" ? (from.protocol === "https:" ? 443 : 80) : Number(from.port)
  return (from.protocol === "http:" || from.protocol === "https:") && from.hostname === to.hostname && port === dashboardPort
}
