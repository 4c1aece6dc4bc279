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

/** Shapes that are secrets wherever they appear: provider keys, GitHub, Slack and AWS tokens. */
const SECRET_SHAPES = /\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})/g
/** A credential after its scheme: `Bearer …`, `Basic …`. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi
/** `NAME=value` or `NAME: value`, whose value is hidden when the name looks like a secret's. */
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_.-]*)(\s*[=:]\s*)(["']?)([^\s"']+)\3/g
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^/:@\s]+:)[^/@\s]+@/gi

/**
 * Hides secrets in text a program printed (an agent's last words): the values given (`known`, e.g. the agent's
 * configured environment; those of 8 characters or more), values of secret-looking names, credentials after their
 * scheme, passwords inside URLs, and the shapes of common tokens.
 */
export const redactText = (text: string, known: ReadonlyArray<string> = []): string => {
  let out = text
  for (const value of [...known].filter((v) => v.length >= 8).sort((a, b) => b.length - a.length)) out = out.split(value).join(REDACTED)
  return out
    .replace(SECRET_SHAPES, REDACTED)
    .replace(AUTH_SCHEME, (_, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(
      ASSIGNMENT,
      (whole, name: string, sep: string, quote: string, value: string) =>
        SECRET_KEY.test(name) && value !== REDACTED && !/^(Bearer|Basic)$/i.test(value) ? `${name}${sep}${quote}${REDACTED}${quote}` : whole
    )
    .replace(URL_PASSWORD, `$1${REDACTED}@`)
}
