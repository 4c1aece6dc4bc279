/** Calls to the dashboard's JSON API; the token travels in the page's cookie. Failures carry the server's message. */
import type { ApiError } from "../api.ts"

const call = async <A>(method: "GET" | "POST", path: string, body?: unknown): Promise<A> => {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {})
  })
  const payload = await response.json().catch(() => undefined) as unknown
  if (!response.ok) {
    const message = (payload as Partial<ApiError> | undefined)?.message
    throw new Error(typeof message === "string" ? message : `${method} ${path} answered ${response.status}`)
  }
  return payload as A
}

export const get = <A>(path: string) => call<A>("GET", path)
export const post = <A>(path: string, body: unknown = {}) => call<A>("POST", path, body)
