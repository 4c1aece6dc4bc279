/**
 * Activity from a host: the hooks of an agent on a host append to its activity file there; the supervisor's probe of
 * that host (one round trip) also reads what each of its sessions' files gained, and the whole lines are appended
 * to the session's LOCAL activity file, which the supervisor, `orch status` and the dashboard read as for any
 * session. Where to read from needs no state of its own: it is the local mirror's size, less the mirror's `base`
 * (the local size when the host's file last started again, kept in a small file beside it; 0 when none), so a
 * restarted supervisor goes on where the mirror ends. A host file shorter than that offset started again (its data
 * was lost, or it was replaced): it is read from its start and the base moves to the mirror's end.
 */
import * as Effect from "effect/Effect"
import { appendFileSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { shellQuote } from "../process/shell-quote.ts"
import { attempt, writeFileAtomic } from "../store/files.ts"
import type { StorePaths } from "../store/paths.ts"
import { dataDirWord } from "./headroom.ts"

/** At most this much of one session's file per round trip; the rest comes with the next. */
export const CHUNK_LIMIT = 1024 * 1024

export interface ActivityTail {
  readonly projectId: string
  readonly sessionId: string
  /** Where to read the host's file from. */
  readonly offset: number
}

export type ActivityAnswer =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Read"; readonly size: number; readonly from: number; readonly bytes: Buffer }

/**
 * The script lines that print, for each session, "@activity <id> -" (no file yet) or "@activity <id> <size> <from>"
 * and the bytes from `from` (the offset asked, or 0 when the file is shorter than that) in base64 on one line.
 */
export const activityScript = (dataDir: string, tails: ReadonlyArray<ActivityTail>, limit = CHUNK_LIMIT): string =>
  tails.length === 0 ?
    "" :
    `d=${dataDirWord(dataDir)}\n${
      tails.map(({ projectId, sessionId, offset }) =>
        `f="$d"/sessions/${shellQuote(projectId)}/${shellQuote(sessionId)}/activity.jsonl
if [ -f "$f" ]; then size=$(wc -c < "$f"); from=${offset}; [ "$size" -lt ${offset} ] && from=0
echo "@activity ${sessionId} $size $from"; tail -c +$((from + 1)) "$f" | head -c ${limit} | base64 | tr -d '\\n'; echo
else echo "@activity ${sessionId} -"; fi
`
      ).join("")
    }`

/** What an activity script printed, per session id; a session whose answer is cut short is left out. */
export const parseActivity = (stdout: string): ReadonlyMap<string, ActivityAnswer> => {
  const answers = new Map<string, ActivityAnswer>()
  const lines = stdout.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const head = /^@activity (\S+) (?:(-)|(\d+) (\d+))$/.exec(lines[i]!)
    if (head === null) continue
    if (head[2] === "-") answers.set(head[1]!, { _tag: "Missing" })
    else if (i + 1 < lines.length && /^[A-Za-z0-9+/=]*$/.test(lines[i + 1]!)) {
      answers.set(head[1]!, { _tag: "Read", size: Number(head[3]), from: Number(head[4]), bytes: Buffer.from(lines[++i]!, "base64") })
    }
  }
  return answers
}

export interface MirrorStep {
  /** The host's file started again: the mirror's base moves to its end before `append`. */
  readonly restarted: boolean
  /** Whole lines to append to the mirror. */
  readonly append: Buffer
}

/**
 * What one answer adds to the mirror: its whole lines (a partial last line waits for the next round trip). A line
 * longer than `limit` cannot arrive whole: its first `limit` bytes are taken as a line (ended by a newline in place
 * of their last byte), so the mirror moves on; the reader skips such a line as unreadable.
 */
export const mirrorStep = (asked: number, answer: ActivityAnswer, limit = CHUNK_LIMIT): MirrorStep => {
  if (answer._tag === "Missing") return { restarted: false, append: Buffer.alloc(0) }
  const restarted = answer.from !== asked
  const end = answer.bytes.lastIndexOf(10)
  if (end >= 0) return { restarted, append: answer.bytes.subarray(0, end + 1) }
  if (answer.bytes.length < limit) return { restarted, append: Buffer.alloc(0) }
  const cut = Buffer.from(answer.bytes)
  cut[cut.length - 1] = 10
  return { restarted, append: cut }
}

/** Where the mirror's base is kept: beside the session's activity file. */
const basePath = (paths: StorePaths, projectId: string, sessionId: string) => join(paths.session(projectId, sessionId), "activity.host-base")

const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0

const baseOf = (path: string): number => {
  try {
    const base = Number(readFileSync(path, "utf8").trim())
    return Number.isSafeInteger(base) && base >= 0 ? base : 0
  } catch {
    return 0
  }
}

/** Where to read a session's host file from: the local mirror's size less its base. */
export const mirrorOffset = (paths: StorePaths, projectId: string, sessionId: string): number =>
  Math.max(0, sizeOf(paths.activity(projectId, sessionId)) - baseOf(basePath(paths, projectId, sessionId)))

/** Appends what the host's answers add to each session's local activity file. */
export const applyMirror = (paths: StorePaths, tails: ReadonlyArray<ActivityTail>, answers: ReadonlyMap<string, ActivityAnswer>) =>
  Effect.forEach(tails, (tail) => {
    const answer = answers.get(tail.sessionId)
    if (answer === undefined) return Effect.void
    const step = mirrorStep(tail.offset, answer)
    const file = paths.activity(tail.projectId, tail.sessionId)
    return Effect.gen(function*() {
      if (step.restarted) yield* writeFileAtomic(basePath(paths, tail.projectId, tail.sessionId), `${sizeOf(file)}\n`)
      if (step.append.length > 0) {
        yield* attempt(file, () => appendFileSync(file, step.append))
      }
    })
  }, { discard: true })
