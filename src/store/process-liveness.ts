/**
 * Whether a process still runs. `kill(pid, 0)` alone is fooled twice: by a zombie (a process that exited but
 * whose parent has not reaped it; in a container whose PID 1 never reaps, that is forever) and by a pid the
 * kernel gave to a new process. On Linux `/proc/<pid>/stat` tells both apart: its state (`Z` zombie, `X` dead)
 * and its start time (clock ticks since boot), which a caller can record beside the pid and compare later.
 * Elsewhere only `kill(pid, 0)` is asked.
 */
import { readFileSync } from "node:fs"

export interface ProcStat {
  /** One letter: R running, S sleeping, D disk wait, T stopped, Z zombie, X dead, … */
  readonly state: string
  /** When the process started, in clock ticks since boot. */
  readonly startTime: string
}

/** Reads `/proc/<pid>/stat`'s text. The command name (field 2) may hold spaces and parentheses: fields are counted after its last `)`. */
export const parseProcStat = (text: string): ProcStat | undefined => {
  const close = text.lastIndexOf(")")
  if (close < 0) return undefined
  const fields = text.slice(close + 1).trim().split(/\s+/)
  // After the name: field 3 (state) is fields[0]; field 22 (starttime) is fields[19].
  const state = fields[0]
  const startTime = fields[19]
  if (state === undefined || startTime === undefined || !/^[A-Za-z]$/.test(state) || !/^\d+$/.test(startTime)) return undefined
  return { state, startTime }
}

/** The process's stat; "gone" when `/proc` has no such process; undefined where there is no `/proc` to ask. */
export const procStat = (pid: number): ProcStat | "gone" | undefined => {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" && hasProc() ? "gone" : undefined
  }
  return parseProcStat(text)
}

let procMounted: boolean | undefined
const hasProc = () => (procMounted ??= (() => {
  try {
    readFileSync("/proc/self/stat")
    return true
  } catch {
    return false
  }
})())

/** Whether `pid` is paused: stopped by a signal (Ctrl-Z, `kill -STOP`) or a tracer; false where the system does not tell. */
export const isProcessPaused = (pid: number | undefined): boolean => {
  const stat = pid === undefined ? undefined : procStat(pid)
  return typeof stat === "object" && (stat.state === "T" || stat.state === "t")
}

/** A process's identity for later checks: its start time where the system tells it, else nothing beyond the pid. */
export const processStartTime = (pid: number): string | undefined => {
  const stat = procStat(pid)
  return typeof stat === "object" ? stat.startTime : undefined
}

/**
 * Whether `pid` is a running process: it exists (or exists but is not ours: EPERM), is not a zombie, and, when
 * `startTime` is given and the system tells it, is the same process that had that start time.
 */
export const isProcessAlive = (pid: number, startTime?: string): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const stat = procStat(pid)
  if (stat === "gone") return false
  if (stat === undefined) return true
  if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return false
  return startTime === undefined || stat.startTime === startTime
}

/** This process as an owner of something on disk: `<pid>` or `<pid> <start time>` (see `isOwnerAlive`). */
export const thisProcess = (): string => {
  const startTime = processStartTime(process.pid)
  return startTime === undefined ? `${process.pid}` : `${process.pid} ${startTime}`
}

/** `<pid>` or `<pid> <start time>`; undefined for anything else. */
export const parseOwner = (text: string): { readonly pid: number; readonly startTime?: string } | undefined => {
  const [pid, startTime, ...rest] = text.trim().split(/\s+/)
  const n = Number(pid)
  if (pid === undefined || pid === "" || !Number.isInteger(n) || n <= 0 || rest.length > 0) return undefined
  return startTime === undefined ? { pid: n } : { pid: n, startTime }
}

/** Whether the process an owner string names still runs; a string that names none is taken for a dead owner. */
export const isOwnerAlive = (owner: string): boolean => {
  const parsed = parseOwner(owner)
  return parsed !== undefined && isProcessAlive(parsed.pid, parsed.startTime)
}
