/** A host sessions may run on, as a `hosts:` entry of orchestrator.yaml describes it, and its SSH target `[user@]host[:port]` read purely. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

/** The name of the machine orch itself runs on; always present, reached without SSH. */
export const LOCAL = "local"

export interface SshTarget {
  readonly user?: string
  readonly hostname: string
  readonly port?: number
}

/** `user@host[:port]`, `host`, `[v6addr]:port`; undefined with the reason when it is none of these. */
export const parseSshTarget = (text: string): SshTarget | string => {
  const at = text.lastIndexOf("@")
  const user = at >= 0 ? text.slice(0, at) : undefined
  const rest = at >= 0 ? text.slice(at + 1) : text
  if (user !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(user)) return `"${text}" has an empty or odd user name before "@"`
  let hostname = rest
  let portText: string | undefined
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(.*))?$/.exec(rest)
  if (bracketed) {
    hostname = bracketed[1]!
    portText = bracketed[2]
  } else if (rest.split(":").length === 2) {
    ;[hostname, portText] = rest.split(":") as [string, string]
  }
  if (!/^[A-Za-z0-9._:-]+$/.test(hostname) || hostname.startsWith("-")) return `"${text}" names no host (expected [user@]host[:port])`
  if (portText !== undefined) {
    const port = Number(portText)
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) return `"${text}" has a port that is not 1-65535`
    return { ...(user !== undefined ? { user } : {}), hostname, port }
  }
  return { ...(user !== undefined ? { user } : {}), hostname }
}

export const formatSshTarget = (target: SshTarget): string => {
  const host = target.hostname.includes(":") ? `[${target.hostname}]` : target.hostname
  return `${target.user !== undefined ? `${target.user}@` : ""}${host}${target.port !== undefined ? `:${target.port}` : ""}`
}

const SshTargetFromString = Schema.String.pipe(Schema.decodeTo(
  Schema.Struct({ user: Schema.optionalKey(Schema.String), hostname: Schema.String, port: Schema.optionalKey(Schema.Int) }),
  SchemaTransformation.transformEffect({
    decode: (text) => {
      const parsed = parseSshTarget(text)
      return typeof parsed === "string" ? Effect.fail(new SchemaIssue.InvalidValue({ message: parsed })) : Effect.succeed(parsed)
    },
    encode: (target) => Effect.succeed(formatSshTarget(target))
  })
))

/**
 * ssh options orch sets itself for its one connection per host; a host's `sshOptions` may not change them (the
 * connection would stop being shared, or start asking for passwords).
 */
export const RESERVED_SSH_OPTIONS = ["BatchMode", "ControlMaster", "ControlPath", "ControlPersist", "RemoteCommand", "RequestTTY"]

/** ssh options the `ssh:` target says: set twice, ssh would use one and orch name the other. */
const TARGET_SSH_OPTIONS = ["User", "HostName", "Port"]

const SshOptions = Schema.Record(Schema.String, Schema.String).pipe(Schema.check(Schema.makeFilter((options) => {
  for (const [key, value] of Object.entries(options)) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key)) return `"${key}" is not an ssh option name`
    if (RESERVED_SSH_OPTIONS.some((reserved) => reserved.toLowerCase() === key.toLowerCase())) {
      return `${key} is set by orch for its shared connection; remove it (orch uses ${RESERVED_SSH_OPTIONS.join(", ")} itself)`
    }
    const target = TARGET_SSH_OPTIONS.find((option) => option.toLowerCase() === key.toLowerCase())
    if (target !== undefined) return `${key} belongs in ssh: ([user@]host[:port]), where orch reads it for its messages; remove it from sshOptions`
    if (/[\r\n]/.test(value)) return `the value of ${key} spans lines`
  }
  return true
})))

/** One host's entry. `dataDir` is on that host (default `~/.orchestrator` there). */
export const HostSpec = Schema.Struct({
  ssh: SshTargetFromString,
  identityFile: Schema.optionalKey(Schema.NonEmptyString),
  sshOptions: Schema.optionalKey(SshOptions),
  dataDir: Schema.optionalKey(Schema.NonEmptyString),
  maxSessions: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  labels: Schema.optionalKey(Schema.Array(Schema.NonEmptyString))
})
export type HostSpec = typeof HostSpec.Type

/** A host as the connection service knows it: its name and, for every host but `local`, how to reach it. */
export interface RemoteHost {
  readonly name: string
  readonly spec: HostSpec
}
