/**
 * The fast path for the commands agents run most (`orch spawn`, `orch batch-spawn`, `orch send`): when a supervisor
 * runs, speak its socket directly with nothing but `node:net`, skipping the command tree and the config (about
 * 250 ms of loading). It prints exactly what the full CLI prints, and exits as it does. It only handles the plain
 * forms (no flags but batch-spawn's `--json`); anything else, or no supervisor to reach, returns `undefined` and the
 * full CLI runs instead. Once a request is sent, it never falls back (that could do the work twice), with one
 * exception: a connection reset before any answer means the request was never read (a socket closes with a reset only over unread data, or over connections still
 * waiting to be accepted, as when a supervisor dies while a child it was starting briefly holds its socket).
 * Whether a supervisor runs is the connection's to say: a socket nobody listens on (a supervisor killed, or a
 * zombie) refuses it before anything is sent, and the full CLI then finds no supervisor either
 * (src/ipc/liveness.ts) and does the work itself.
 *
 * The messages are effect/rpc's socket protocol as `src/ipc/protocol.ts` defines it (newline-delimited JSON);
 * test/ipc/fast-path.test.ts keeps the two in step against a real supervisor.
 *
 * A spawn interrupted by Ctrl-C or a signal does what the full CLI does (src/cli/spawn-interrupted.ts): it hangs
 * up, which makes the supervisor stop the spawn and undo it, waits a few seconds at most for the event that says
 * what became of it, says so in one sentence, and exits 128 + the signal's number.
 */
import { readFileSync } from "node:fs"
import { connect } from "node:net"
import { homedir } from "node:os"
import { join } from "node:path"
import type { HostShape } from "../config/host.ts"
import { configNotice } from "../config/notice.ts"
import { configHere } from "../config/search.ts"
import { batchFailedMessage, batchSummary, describeOutcome, type OutcomeLine } from "../domain/batch-summary.ts"
import { normalIssueId } from "../domain/issue-id.ts"
import { isRecord, isString } from "../domain/plain-guards.ts"
import { interruptedSpawnSentence, type SpawnAsked, spawnFate } from "../domain/spawn-fate.ts"
import { eventLogEnd, eventsAfter } from "../store/events-after.ts"
import { BATCH_SETTLE_MS, BATCH_SETTLE_POLL_MS, BATCH_SETTLE_READS, type InterruptedBatch, interruptedBatchNow } from "../store/interrupted-batch.ts"
import { dataDir, storePaths } from "../store/paths.ts"
import { ANSWER_WAIT_MS, unansweredMessage } from "./raw-ping.ts"

interface Printed {
  readonly stdout: string
  readonly stderr: string
  /** 0 unless said. */
  readonly exitCode?: number
}

interface Exchange {
  readonly tag: "Spawn" | "BatchSpawn" | "Send"
  /** A spawn's question, for what to say if it is interrupted. */
  readonly asked?: SpawnAsked
  /** A batch's issues (as orch keeps their ids), likewise. */
  readonly batch?: ReadonlyArray<string>
  readonly payload: Record<string, unknown>
  /** What to print for the answer, or undefined when the answer is not what the request answers. */
  readonly print: (value: unknown) => Printed | undefined
}

const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.filter(isString) : [])

/** A spawn's answer as the fast path needs it (`Spawned` in protocol.ts): its session id, warnings and what was recovered first. */
const spawned = (value: unknown) => {
  if (!isRecord(value) || !isRecord(value.record) || typeof value.record.sessionId !== "string") return undefined
  return { sessionId: value.record.sessionId, warnings: strings(value.warnings), recovered: strings(value.recovered) }
}

/** One of a batch's outcomes (`BatchOutcome` in protocol.ts), as far as what is told of it needs. */
const outcomeLine = (value: unknown): value is OutcomeLine => {
  if (!isRecord(value) || !isString(value.issueId)) return false
  switch (value._tag) {
    case "Created":
      return isRecord(value.record) && isString(value.record.sessionId) && isString(value.record.branch) &&
        (value.record.host === undefined || isString(value.record.host)) && Array.isArray(value.warnings) && value.warnings.every(isString)
    case "Skipped":
      return isString(value.sessionId)
    case "Failed":
      return isString(value.reason)
    case "Queued":
      return isString(value.entryId) && typeof value.position === "number" && isString(value.reason)
    default:
      return false
  }
}

/** A batch's answer as the full CLI prints it (src/cli/spawn.ts): a line per issue and the summary, or the JSON. */
export const printBatch = (json: boolean) => (value: unknown): Printed | undefined => {
  if (!Array.isArray(value) || !value.every(outcomeLine)) return undefined
  const failed = value.filter((outcome) => outcome._tag === "Failed").length
  const lines = json ? [JSON.stringify(value, null, 2)] : [...value.map(describeOutcome), ...batchSummary(value)]
  return { stdout: lines.map((line) => `${line}\n`).join(""), stderr: failed > 0 ? `orch: ${batchFailedMessage(failed)}\n` : "", exitCode: failed > 0 ? 1 : 0 }
}

const plan = (argv: ReadonlyArray<string>): Exchange | undefined => {
  if (argv[0] === "batch-spawn") {
    const words = argv.slice(1).filter((arg) => arg !== "--json")
    const flags = argv.length - 1 - words.length
    // `--json` twice, other flags, no issue: the full CLI's own answer (a usage error, or what the flag does).
    if (flags > 1 || words.length < 2 || words.some((arg) => arg.startsWith("-"))) return undefined
    const [project, ...issues] = words
    return { tag: "BatchSpawn", payload: { project, issues }, batch: issues.map(normalIssueId), print: printBatch(flags === 1) }
  }
  if (argv.some((arg) => arg.startsWith("-"))) return undefined
  const [command, first, ...rest] = argv
  if (command === "spawn" && first !== undefined && rest.length === 1) {
    return {
      tag: "Spawn",
      payload: { project: first, issue: rest[0] },
      asked: { project: first, issueId: normalIssueId(rest[0]!) },
      print: (value) => {
        const answer = spawned(value)
        return answer && {
          stdout: `${answer.sessionId}\n`,
          stderr: [...answer.recovered.map((line) => `orch: ${line}\n`), ...answer.warnings.map((w) => `orch: warning: ${w}\n`)].join("")
        }
      }
    }
  }
  if (command === "send" && first !== undefined && rest.length > 0 && rest.join(" ").trim() !== "") {
    return { tag: "Send", payload: { sessionId: first, message: rest.join(" ") }, print: () => ({ stdout: `delivered to ${first}\n`, stderr: "" }) }
  }
  return undefined
}

interface Announced {
  readonly socket: string
  readonly pid?: number
  readonly configPath?: string
}

/** The socket a supervisor announced in `supervisor.json`, its pid and the config it serves; whether anything answers, connecting tells. */
const announced = (root: string): Announced | undefined => {
  try {
    const file: unknown = JSON.parse(readFileSync(join(root, "supervisor.json"), "utf8"))
    if (!isRecord(file) || !isString(file.socket)) return undefined
    return {
      socket: file.socket,
      ...(typeof file.pid === "number" ? { pid: file.pid } : {}),
      ...(isString(file.configPath) ? { configPath: file.configPath } : {})
    }
  } catch {
    return undefined
  }
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const
/** How long an interrupted spawn waits for the supervisor's receipt (as src/cli/spawn-interrupted.ts does). */
const RECEIPT_WAIT_MS = 10_000
const RECEIPT_POLL_MS = 100

const UNREADABLE = "orch: the supervisor sent an answer orch cannot read; `orch stop` and `orch start` again if it persists\n"

/** Runs the command through the supervisor; resolves to its exit code, or undefined to use the full CLI. */
export const runFast = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): Promise<number | undefined> => {
  const exchange = plan(argv)
  const host: HostShape = { env, homeDir: env.HOME || homedir(), cwd: process.cwd() }
  const root = dataDir(host)
  const supervisor = exchange === undefined ? undefined : announced(root)
  if (exchange === undefined || supervisor === undefined) return Promise.resolve(undefined)
  const { socket, pid } = supervisor
  // Said as the full CLI says it (src/cli/acting-config.ts): the supervisor's config is not the one found here.
  const notice = supervisor.configPath === undefined ? undefined : configNotice({ _tag: "Supervisor", path: supervisor.configPath }, configHere(host), host)
  const eventsPath = storePaths(root).events
  const from = eventLogEnd(eventsPath)
  return new Promise((resolve) => {
    let sent = false
    let received = false
    let done = false
    let buffer = ""
    const handlers = Object.keys(SIGNALS).map((signal) => [signal, () => interrupted(signal as keyof typeof SIGNALS)] as const)
    let unanswered: ReturnType<typeof setTimeout> | undefined
    const finish = (code: number | undefined, stdout = "", stderr = "") => {
      if (done) return
      done = true
      clearTimeout(unanswered)
      for (const [signal, handler] of handlers) process.removeListener(signal, handler)
      client.destroy()
      process.stdout.write(stdout)
      process.stderr.write(code !== undefined && notice !== undefined ? `orch: ${notice}\n${stderr}` : stderr)
      resolve(code)
    }
    /**
     * A signal while a spawn or a batch is asked: hang up (the supervisor undoes what was being made), then say what
     * became of it, and exit with 128 + the signal's number.
     */
    let stopping = false
    const interrupted = (signal: keyof typeof SIGNALS) => {
      if (done || stopping) return
      stopping = true
      const asked = exchange.asked
      const code = 128 + SIGNALS[signal]
      client.destroy()
      if (exchange.batch !== undefined) return tellBatch(code, { root, eventsPath, from, issues: exchange.batch, supervised: true, taken: sent })
      if (asked === undefined) return finish(code)
      if (!sent) return finish(code, "", `orch: ${interruptedSpawnSentence(asked, false, { _tag: "Unknown" })}\n`)
      const started = Date.now()
      const look = () => {
        const fate = spawnFate(eventsAfter(eventsPath, from), asked)
        if (fate._tag === "Unknown" && Date.now() - started < RECEIPT_WAIT_MS) return void setTimeout(look, RECEIPT_POLL_MS)
        finish(code, "", `orch: ${interruptedSpawnSentence(asked, true, fate)}\n`)
      }
      look()
    }
    /** What an interrupted batch says, once the supervisor has acted on the hang-up (the sentence stays the same). */
    const tellBatch = (code: number, batch: InterruptedBatch) => {
      const started = Date.now()
      let last = ""
      let same = 0
      const look = () => {
        const sentence = interruptedBatchNow(batch)
        same = sentence === last ? same + 1 : 1
        last = sentence
        if (batch.taken && same < BATCH_SETTLE_READS && Date.now() - started < BATCH_SETTLE_MS) return void setTimeout(look, BATCH_SETTLE_POLL_MS)
        finish(code, "", `orch: ${sentence}\n`)
      }
      look()
    }
    if (exchange.tag !== "Send") { for (const [signal, handler] of handlers) process.on(signal, handler) }
    // A Ping first, as the full CLI's (src/ipc/liveness.ts): a supervisor that takes the connection but does not answer
    // (stopped, or stuck) is said so, and is sent nothing it would carry out later, when whoever asked is gone.
    const client = connect(socket, () => {
      client.write(`${JSON.stringify({ _tag: "Request", id: "0", tag: "Ping", payload: null, headers: [] })}\n`)
      unanswered = setTimeout(
        () => finish(1, "", `orch: ${unansweredMessage(pid, socket)}\n`),
        ANSWER_WAIT_MS
      )
    })
    const ask = () => {
      clearTimeout(unanswered)
      sent = true
      client.write(`${JSON.stringify({ _tag: "Request", id: "1", tag: exchange.tag, payload: exchange.payload, headers: [] })}\n`)
    }
    client.setEncoding("utf8")
    client.on("data", (chunk: string) => {
      if (stopping) return
      if (sent) received = true
      buffer += chunk
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 1)
        let message: {
          _tag?: string
          requestId?: string
          exit?: { _tag: string; value?: unknown; cause?: Array<{ _tag: string; error?: { reason?: string; exitCode?: number } }> }
        }
        try {
          message = JSON.parse(line)
        } catch {
          return finish(1, "", UNREADABLE)
        }
        if (message._tag === "Exit" && message.requestId === "0" && !sent) {
          ask()
          continue
        }
        if (message._tag !== "Exit" || message.requestId !== "1" || message.exit === undefined) continue
        if (message.exit._tag === "Success") {
          const printed = exchange.print(message.exit.value)
          return printed === undefined ? finish(1, "", UNREADABLE) : finish(printed.exitCode ?? 0, printed.stdout, printed.stderr)
        }
        const failure = message.exit.cause?.find((reason) => reason._tag === "Fail")?.error
        return finish(failure?.exitCode ?? 1, "", `orch: ${failure?.reason ?? "the supervisor failed to carry out the command"}\n`)
      }
    })
    client.on("error", (error: NodeJS.ErrnoException) => {
      if (stopping) return
      if (sent && !(!received && error.code === "ECONNRESET")) finish(1, "", `orch: lost the supervisor: ${error.message}\n`)
      else finish(undefined)
    })
    client.on("close", () => {
      if (stopping) return
      if (sent) finish(1, "", "orch: the supervisor closed the connection without answering\n")
      else finish(undefined)
    })
  })
}
