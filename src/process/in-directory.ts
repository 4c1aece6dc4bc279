/**
 * The processes working in a directory (their current directory is in it), and ending them: what a spawn killed
 * half-way left running in its worktree (its `postCreate`, say) is ended before the worktree is undone. Linux only
 * (`/proc`); elsewhere none are found.
 */
import { readdirSync, readlinkSync } from "node:fs"
import { sep } from "node:path"

/** The pids (never this process's) whose current directory is `dir` or below it. */
export const processesIn = (dir: string): ReadonlyArray<number> => {
  let pids: Array<string>
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  return pids.flatMap((name) => {
    const pid = Number(name)
    if (pid === process.pid) return []
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`)
      return cwd === dir || cwd.startsWith(`${dir}${sep}`) ? [pid] : []
    } catch {
      return []
    }
  })
}

/** Ends (SIGKILL) every process working in `dir`; answers how many were. */
export const endProcessesIn = (dir: string): number =>
  processesIn(dir).filter((pid) => {
    try {
      process.kill(pid, "SIGKILL")
      return true
    } catch {
      return false
    }
  }).length
