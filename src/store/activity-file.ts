/** Reading the newest activity signal of a session without reading its whole `activity.jsonl`. */
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
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
