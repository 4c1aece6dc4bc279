/** Hides secrets before a config is shown: values under secret-looking keys, and passwords inside URLs. */
export const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|auth|credential|cookie|webhook(url)?$|^smtp$/i
export const REDACTED = "<redacted>"

const redactUrlPassword = (value: string): string => value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]+:)[^/@\s]+@/i, `$1${REDACTED}@`)

export const redactSecrets = (value: unknown, key = ""): unknown => {
  if (typeof value === "string") return SECRET_KEY.test(key) && value !== "" ? REDACTED : redactUrlPassword(value)
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, key))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, k)]))
  }
  return value
}
