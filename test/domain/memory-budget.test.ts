/**
 * A memory group's budget (src/domain/memory-budget.ts): the pure reading, and the script's answer on this machine
 * inside a real v1 or v2 memory group with a limit, where the machine lets a test make one.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { groupAvailableBytes, groupDirs, groupLimitBytes, GROUPS_SCRIPT, inactiveFileOf, parseGroupLine, parseLimit } from "../../src/domain/memory-budget.ts"

const GB = 1024 ** 3

describe("memory budget of a control group", () => {
  it.each<[string, number | undefined]>([["max\n", undefined], ["9223372036854771712\n", undefined], ["3221225472\n", 3 * GB], ["junk", undefined]])(
    "parseLimit(%j) = %s",
    (text, expected) => expect(parseLimit(text)).toBe(expected)
  )

  it("inactive file: v1's total (its whole subtree) before v2's own", () => {
    expect(inactiveFileOf("cache 5\ninactive_file 10\ntotal_inactive_file 30\n")).toBe(30)
    expect(inactiveFileOf("anon 5\ninactive_file 10\n")).toBe(10)
    expect(inactiveFileOf("")).toBe(0)
  })

  it("what is left is the tightest group's limit − usage + reclaimable cache; no limit anywhere is no budget", () => {
    expect(groupAvailableBytes([{ limit: undefined, usage: 5 * GB, inactiveFile: 0 }])).toBeUndefined()
    expect(groupAvailableBytes([
      { limit: 4 * GB, usage: 3 * GB, inactiveFile: 0.5 * GB },
      { limit: 8 * GB, usage: 7.9 * GB, inactiveFile: 0 },
      { limit: undefined, usage: 20 * GB, inactiveFile: 0 }
    ])).toBeCloseTo(0.1 * GB)
    expect(groupAvailableBytes([{ limit: 1 * GB, usage: 2 * GB, inactiveFile: 0 }])).toBe(0)
    expect(groupLimitBytes([{ limit: 8 * GB, usage: 0, inactiveFile: 0 }, { limit: 4 * GB, usage: 0, inactiveFile: 0 }])).toBe(4 * GB)
  })

  it("the groups of a process, its own first, for v2 and v1's memory controller", () => {
    expect(groupDirs("0::/user.slice/orch.scope\n")).toEqual(["/sys/fs/cgroup/user.slice/orch.scope", "/sys/fs/cgroup/user.slice", "/sys/fs/cgroup"])
    expect(groupDirs("5:devices:/x\n4:memory:/docker/abc\n0::/\n")).toEqual([
      "/sys/fs/cgroup/memory/docker/abc",
      "/sys/fs/cgroup/memory/docker",
      "/sys/fs/cgroup/memory",
      "/sys/fs/cgroup"
    ])
    expect(groupDirs("3:cpu,memory:/a\n")).toEqual(["/sys/fs/cgroup/memory/a", "/sys/fs/cgroup/memory"])
  })

  it("the script's lines", () => {
    expect(parseGroupLine("max 123 45")).toEqual({ limit: undefined, usage: 123, inactiveFile: 45 })
    expect(parseGroupLine("3221225472 1000 ")).toEqual({ limit: 3 * GB, usage: 1000, inactiveFile: 0 })
    expect(parseGroupLine("")).toBeUndefined()
  })

  // A group of our own under the one this process is in (v1 memory controller or v2), when the machine allows it.
  const own = readFileSync("/proc/self/cgroup", "utf8")
  const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(own)?.[1]
  const parent = v1 !== undefined ? join("/sys/fs/cgroup/memory", v1) : join("/sys/fs/cgroup", /^0::(.*)$/m.exec(own)?.[1] ?? "/")
  const limitFile = v1 !== undefined ? "memory.limit_in_bytes" : "memory.max"
  const canMake = (() => {
    try {
      const probe = join(parent, `orch-probe-${process.pid}`)
      mkdirSync(probe)
      const ok = existsSync(join(probe, limitFile))
      rmdirSync(probe)
      return ok
    } catch {
      return false
    }
  })()
  it.runIf(canMake)("in a real group limited to 512 MB, the script reads the limit and what is left", () => {
    const group = join(parent, `orch-test-${process.pid}`)
    mkdirSync(group)
    try {
      writeFileSync(join(group, limitFile), String(512 * 1024 ** 2))
      const out = execFileSync("sh", ["-c", `echo $$ > ${group}/cgroup.procs; ${GROUPS_SCRIPT}`], { encoding: "utf8" })
      const groups = out.trim().split("\n").flatMap((line) => parseGroupLine(line) ?? [])
      expect(groupLimitBytes(groups)).toBe(512 * 1024 ** 2)
      const left = groupAvailableBytes(groups)!
      expect(left).toBeGreaterThan(400 * 1024 ** 2)
      expect(left).toBeLessThanOrEqual(512 * 1024 ** 2)
    } finally {
      rmdirSync(group)
    }
  })
})
