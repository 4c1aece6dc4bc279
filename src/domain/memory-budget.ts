/**
 * A memory budget below the machine's: the limit of the control group orch runs in (a container's memory limit, a
 * systemd slice's MemoryMax). Its sessions run in it too (tmux's server is started from orch), so what the group
 * has left counts, not the machine's MemAvailable. Pure: the figures come from the files of the group and of each
 * group above it (cgroup v2 `memory.max`, `memory.current`, `memory.stat`; v1 `memory.limit_in_bytes`,
 * `memory.usage_in_bytes`), read here (admission-facts.ts) or on a host (hosts/headroom.ts).
 */

/** One group's figures, in bytes; `limit` undefined when the group has none. */
export interface GroupMemory {
  readonly limit: number | undefined
  readonly usage: number
  /** Page cache the kernel drops first when the group nears its limit: not really used. */
  readonly inactiveFile: number
}

/** v1 writes "no limit" as a number near 2^63 (rounded to the page size); v2 as "max". */
const NO_LIMIT = 2 ** 60

export const parseLimit = (text: string): number | undefined => {
  const trimmed = text.trim()
  if (trimmed === "max") return undefined
  const value = Number(trimmed)
  return Number.isFinite(value) && value < NO_LIMIT ? value : undefined
}

/** `total_inactive_file` (v1, which counts the groups below too) or `inactive_file` (v2) from memory.stat; 0 when absent. */
export const inactiveFileOf = (stat: string): number => {
  const value = (key: string) => new RegExp(`^${key} (\\d+)$`, "m").exec(stat)?.[1]
  return Number(value("total_inactive_file") ?? value("inactive_file") ?? 0)
}

/** What the tightest group left: the least of limit − usage + inactive file over the groups with a limit; undefined when none has one. */
export const groupAvailableBytes = (groups: ReadonlyArray<GroupMemory>): number | undefined => {
  const left = groups.flatMap((group) => group.limit === undefined ? [] : [Math.max(0, group.limit - group.usage + group.inactiveFile)])
  return left.length === 0 ? undefined : Math.min(...left)
}

/** The tightest limit of the groups; undefined when none has one. */
export const groupLimitBytes = (groups: ReadonlyArray<GroupMemory>): number | undefined => {
  const limits = groups.flatMap((group) => group.limit === undefined ? [] : [group.limit])
  return limits.length === 0 ? undefined : Math.min(...limits)
}

/**
 * The directories of a process's memory groups, its own first and each one above it, from /proc/<pid>/cgroup:
 * the v2 group (`0::/a/b` under /sys/fs/cgroup) and the v1 memory group (`4:memory:/a/b` under
 * /sys/fs/cgroup/memory). A directory without the memory files is skipped by whoever reads them.
 */
export const groupDirs = (procCgroup: string): ReadonlyArray<string> => {
  const dirs: Array<string> = []
  for (const line of procCgroup.split("\n")) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line.trim()) ?? []
    if (path === undefined) continue
    const mount = controllers === "" ? "/sys/fs/cgroup" : controllers!.split(",").includes("memory") ? "/sys/fs/cgroup/memory" : undefined
    if (mount === undefined) continue
    const parts = path.split("/").filter(Boolean)
    for (let depth = parts.length; depth >= 0; depth--) dirs.push([mount, ...parts.slice(0, depth)].join("/"))
  }
  return dirs
}

/** One line per group in the headroom script's answer: "limit usage inactive_file". */
export const parseGroupLine = (line: string): GroupMemory | undefined => {
  const [limit, usage, inactive] = line.trim().split(/\s+/)
  if (limit === undefined || usage === undefined || !/^\d+$/.test(usage)) return undefined
  return { limit: parseLimit(limit), usage: Number(usage), inactiveFile: inactive !== undefined && /^\d+$/.test(inactive) ? Number(inactive) : 0 }
}

/** The shell that prints one line per group ("limit usage inactive_file"), the process's own first; for hosts. */
export const GROUPS_SCRIPT =
  `sed -n -e 's|^0::|/sys/fs/cgroup|p' -e 's|^[0-9]*:\\(.*,\\)\\{0,1\\}memory\\(,.*\\)\\{0,1\\}:|/sys/fs/cgroup/memory|p' /proc/self/cgroup 2>/dev/null |
while read -r g; do
  while [ \${#g} -ge 14 ]; do
    if [ -f "$g/memory.max" ]; then echo "$(cat "$g/memory.max") $(cat "$g/memory.current") $(awk '$1=="inactive_file"{print $2}' "$g/memory.stat")"
    elif [ -f "$g/memory.limit_in_bytes" ]; then echo "$(cat "$g/memory.limit_in_bytes") $(cat "$g/memory.usage_in_bytes") $(awk '$1=="total_inactive_file"{print $2}' "$g/memory.stat")"; fi
    case "$g" in /sys/fs/cgroup|/sys/fs/cgroup/memory) break;; esac
    g=\${g%/*}
  done
done`
