/** Failures of reaching a host, each one sentence naming the host, what happened and what to do. */
import * as Schema from "effect/Schema"
import { describeSshFailure, type SshProblem } from "./ssh-failure.ts"

const SshProblemSchema = Schema.Literals([
  "host-key-changed",
  "host-key-unknown",
  "key-refused",
  "connection-refused",
  "timed-out",
  "unreachable",
  "connection-lost",
  "other"
])

/** ssh failed to reach the host or lost it; `problem` says how, `detail` is ssh's own line. */
export class HostConnectionFailed extends Schema.TaggedError<HostConnectionFailed>()("HostConnectionFailed", {
  host: Schema.String,
  target: Schema.String,
  problem: SshProblemSchema,
  detail: Schema.String
}) {
  override get message() {
    return `host ${this.host} (${this.target}) ${describeSshFailure({ problem: this.problem as SshProblem, detail: this.detail })}`
  }
}

/** A round trip that did not finish in time (a frozen, overloaded or cut-off host). */
export class HostTimedOut extends Schema.TaggedError<HostTimedOut>()("HostTimedOut", {
  host: Schema.String,
  target: Schema.String,
  seconds: Schema.Number
}) {
  override get message() {
    return `host ${this.host} (${this.target}) did not answer within ${this.seconds} s: it may be frozen, overloaded or cut off; orch reconnects on its own, check the host if it stays down`
  }
}

/** The host is down (its last failure given): work for it is refused until it answers again (a reconnect, with backoff). */
export class HostDown extends Schema.TaggedError<HostDown>()("HostDown", {
  host: Schema.String,
  lastError: Schema.String
}) {
  override get message() {
    // The last error names the host and says what happened: this adds only what it means for the work asked.
    return `${this.lastError}; nothing is sent to host ${this.host} until it can be reached again`
  }
}

export class HostUnknown extends Schema.TaggedError<HostUnknown>()("HostUnknown", {
  host: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `there is no host named ${this.host}; the hosts are ${this.known.join(", ")}`
  }
}

/** orch cannot keep its connection sockets where it wants to (the directory is unsafe, or the path too long). */
export class ControlDirUnusable extends Schema.TaggedError<ControlDirUnusable>()("ControlDirUnusable", {
  dir: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `orch cannot keep its ssh connection sockets in ${this.dir}: ${this.reason}`
  }
}

export type HostError = HostConnectionFailed | HostTimedOut | HostDown | HostUnknown | ControlDirUnusable
