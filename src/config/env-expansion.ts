/**
 * `${VAR}` and `${VAR:-default}` in every string value of a raw config. `$${` writes a literal `${`.
 * An unset variable without a default is reported at its path; the value is left as written.
 */
export interface ExpansionIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** Where in the file to point at, when not at `path` (a key that is missing because of another one written there). */
  readonly at?: ReadonlyArray<string | number>
}

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export const expandString = (
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  onMissing: (variable: string) => void
): string =>
  value.replace(REFERENCE, (whole, escaped: string, name: string, fallback: string | undefined) => {
    if (escaped) return whole.slice(1)
    const set = env[name]
    if (set !== undefined && set !== "") return set
    if (fallback !== undefined) return fallback
    if (set === undefined) onMissing(name)
    return set ?? whole
  })

export const expandEnv = (
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>
): { readonly value: unknown; readonly issues: ReadonlyArray<ExpansionIssue> } => {
  const issues: Array<ExpansionIssue> = []
  const walk = (node: unknown, path: ReadonlyArray<string | number>): unknown => {
    if (typeof node === "string") {
      return expandString(
        node,
        env,
        (variable) => issues.push({ path, message: `Environment variable "${variable}" is not set (write \${${variable}:-default} to give a default)` })
      )
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]))
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]))
    }
    return node
  }
  return { value: walk(raw, []), issues }
}
