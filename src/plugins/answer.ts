/**
 * Reading a host's answer (GitHub's REST and GraphQL, Linear's GraphQL) with a Schema: the decoded value, or what
 * is wrong with it in one line that names the fields ("answered an issue without `title`").
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/** What an answer should be: its Schema, and what it is called in messages ("an issue", "a pull request"). */
export interface Expected<A> {
  readonly schema: Schema.Decoder<A>
  readonly what: string
}

export const expected = <A>(schema: Schema.Decoder<A>, what: string): Expected<A> => ({ schema, what })

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()
/** Fields named in one line; the rest are counted. */
const NAMED = 4

const list = (items: ReadonlyArray<string>) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`)

/** "answered an issue without `title` and `url`; with `labels.0.name`: Expected string, got 3". */
export const answerProblem = (what: string, issue: SchemaIssue.Issue): string => {
  const missing: Array<string> = []
  const wrong: Array<string> = []
  for (const i of formatter(issue).issues) {
    const path = (i.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".")
    const message = i.message.replace(/\s+/g, " ")
    if (path === "") wrong.push(`something else (${message})`)
    else if (message === "Missing key") missing.push(`\`${path}\``)
    else wrong.push(`\`${path}\`: ${message}`)
  }
  const named = [...missing.slice(0, NAMED), ...wrong.slice(0, Math.max(0, NAMED - missing.length))]
  const left = missing.length + wrong.length - named.length
  const parts = [
    ...(missing.length > 0 ? [`without ${list(named.filter((n) => missing.includes(n)))}`] : []),
    ...named.filter((n) => !missing.includes(n)).map((n) => `with ${n}`)
  ]
  return `answered ${what} ${parts.join("; ")}${left > 0 ? ` (and ${left} more problems)` : ""}`
}

/** `value` as the Schema's Type, or the one-line problem. */
export const readAnswer = <A>({ schema, what }: Expected<A>) => (value: unknown): Effect.Effect<A, string> =>
  Schema.decodeUnknownEffect(schema)(value, { errors: "all", reportInput: true }).pipe(
    Effect.mapError((error) => answerProblem(what, error.issue))
  )
