/** Reading the newest activity signal of a session without reading its whole `activity.jsonl`. */
import { closeSync, existsSync, fstatSync, type FSWatcher, openSync, readSync, watch } from "node:fs"
import { type ActivitySignal, parseSignal } from "../domain/activity.ts"

const TAIL_BYTES = 8192

export const latestSignal = (file: string): ActivitySignal | undefined => {
  // A session whose agent signals nothing has no file: asking first costs an access(2), a thrown ENOENT several times
  // that (and a stat, the object it makes, which `orch status` would make once per live session).
  if (!existsSync(file)) return undefined
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return undefined
  }
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, TAIL_BYTES)
    const buffer = Buffer.allocUnsafe(length)
    const read = readSync(fd, buffer, 0, length, size - length)
    const lines = buffer.toString("utf8", 0, read).trimEnd().split("\n")
    for (let i = lines.length - 1; i >= 0; i--) {
      const signal = parseSignal(lines[i]!)
      if (signal !== undefined) return signal
    }
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** A signal and the byte offset just past its line. */
export interface ReadSignal {
  readonly signal: ActivitySignal
  readonly end: number
}

/**
 * Every signal appended since byte `offset`, each with where its line ends, and the offset to read from next
 * time. A partial last line waits; a file that shrank (replaced) is read from its start.
 */
export const readSignalsSince = (file: string, offset: number): { readonly signals: ReadonlyArray<ReadSignal>; readonly offset: number } => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return { signals: [], offset }
  }
  try {
    const size = fstatSync(fd).size
    const start = size < offset ? 0 : offset
    if (size === start) return { signals: [], offset: start }
    const buffer = Buffer.alloc(size - start)
    readSync(fd, buffer, 0, buffer.length, start)
    const signals: Array<ReadSignal> = []
    let at = 0
    for (let newline = buffer.indexOf(10, at); newline !== -1; newline = buffer.indexOf(10, at)) {
      const signal = parseSignal(buffer.toString("utf8", at, newline))
      at = newline + 1
      if (signal !== undefined) signals.push({ signal, end: start + at })
    }
    return { signals, offset: start + at }
  } finally {
    closeSync(fd)
  }
}

/**
 * Calls `onChange` when the session's activity file is written (inotify on its directory: no polling, no
 * subprocess). Undefined when the directory cannot be watched; the probe cycle still reads the file.
 */
export const watchActivity = (sessionDir: string, onChange: () => void): FSWatcher | undefined => {
  try {
    const watcher = watch(sessionDir, { persistent: false }, (_event, name) => {
      if (name === null || name === "activity.jsonl") onChange()
    })
    watcher.on("error", () => watcher.close())
    return watcher
  } catch {
    return undefined
  }
}
