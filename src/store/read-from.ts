/** Reading a file from an offset with node:fs alone: the CLI's fast path uses it too, and loads nothing else. */
import { closeSync, fstatSync, openSync, readSync } from "node:fs"

/** The text of `path` from byte `offset` to its end ("" when there is none). */
export const readFrom = (path: string, offset: number): string => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return ""
    throw error
  }
  try {
    const length = Math.max(0, fstatSync(fd).size - offset)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, offset + read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString("utf8")
  } finally {
    closeSync(fd)
  }
}
