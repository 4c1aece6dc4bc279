/** The dashboard's addresses: what `orch start` prints and opens. */

/** Where a client reaches a listening host: a wildcard address is reached on this machine at 127.0.0.1. */
export const reachableHost = (host: string): string => host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host

export const sessionPath = (sessionId: string): string => `/sessions/${encodeURIComponent(sessionId)}`

/** A dashboard page's URL carrying the token once (the page keeps it in a cookie and drops it from the address). */
export const dashboardUrl = (server: { readonly host: string; readonly port: number }, token: string, path = "/"): string =>
  `http://${reachableHost(server.host)}:${server.port}${path}?token=${token}`

/** Another page of the dashboard at `dashboardUrl` (which carries the token), with the same token. */
export const pageUrl = (dashboardUrl: string, path: string): string => {
  const url = new URL(dashboardUrl)
  url.pathname = path
  return url.toString()
}
