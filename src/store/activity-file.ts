/** Reading the newest activity signal of a session without reading its whole `activity.jsonl`. */
import { closeSync, fstatSync, openSync, readSync, watch, type FSWatcher } from "node:fs"
import { parseSignal, type ActivitySignal } from "../domain/activity.ts"

const TAIL_BYTES = 8192

export const latestSignal = (file: string): ActivitySignal | undefined => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return undefined
  }
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    readSync(fd, buffer, 0, length, size - length)
    const lines = buffer.toString("utf8").trimEnd().split("\n")
    for (let i = lines.length - 1; i >= 0; i--) {
      const signal = parseSignal(lines[i]!)
      if (signal !== undefined) return signal
    }
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Every signal appended since byte `offset`, and the offset to read from next time. A partial last line waits. */
export const readSignalsSince = (file: string, offset: number): { readonly signals: ReadonlyArray<ActivitySignal>; readonly offset: number } => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return { signals: [], offset }
  }
  try {
    const size = fstatSync(fd).size
    if (size < offset) offset = 0
    if (size === offset) return { signals: [], offset }
    const buffer = Buffer.alloc(size - offset)
    readSync(fd, buffer, 0, buffer.length, offset)
    const text = buffer.toString("utf8")
    const complete = text.lastIndexOf("\n") + 1
    const signals = text.slice(0, complete).split("\n").flatMap((line) => {
      const signal = line === "" ? undefined : parseSignal(line)
      return signal === undefined ? [] : [signal]
    })
    return { signals, offset: offset + Buffer.byteLength(text.slice(0, complete)) }
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
