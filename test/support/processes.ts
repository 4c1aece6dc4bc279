/** Test helpers over /proc: a process tree, a user's processes, signalling a list of pids (each by its id). */
import { readdirSync, readFileSync } from "node:fs"

/** Processes as /proc shows them: pid, parent and real uid. */
export const processes = (): Array<{ pid: number; ppid: number; uid: number }> => {
  const list: Array<{ pid: number; ppid: number; uid: number }> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8")
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1])
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1])
      list.push({ pid: Number(entry), ppid, uid })
    } catch {
      // it exited while we looked
    }
  }
  return list
}

/** `root` and all its descendants, plus every process of `uid`. */
export const treeAndUser = (root: number | undefined, uid: number): Array<number> => {
  const all = processes()
  const found = new Set<number>(all.filter((p) => p.uid === uid).map((p) => p.pid))
  if (root !== undefined) {
    // The sshd and its descendants (each connection's privileged and session processes).
    const tree = new Set<number>([root])
    for (let grew = true; grew;) {
      grew = false
      for (const p of all) {
        if (tree.has(p.ppid) && !tree.has(p.pid)) {
          tree.add(p.pid)
          grew = true
        }
      }
    }
    for (const pid of tree) found.add(pid)
  }
  return [...found]
}

/** Processes whose command line has `word` as one of its arguments (e.g. a file of this test run). */
export const processesWithArgument = (word: string): Array<number> =>
  processes().filter((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0").includes(word)
    } catch {
      return false
    }
  }).map((p) => p.pid)

export const signal = (pids: ReadonlyArray<number>, sig: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {
      // already gone
    }
  }
}
