import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { readFileSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { measureHeadroom, parseHeadroom } from "../../src/hosts/headroom.ts"
import { HostConnections } from "../../src/hosts/HostConnections.ts"
import { tempDir } from "../support/host.ts"
import { makeSshHosts, type SshHost, sshHostsUnavailable } from "../support/ssh-hosts.ts"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "headroom", name), "utf8")
// The script's real answers on a 2-CPU Linux VM (Debian 12): as root with tmux 3.3a, and as a harness host's user
// whose PATH has no tmux (test/support/ssh-hosts.ts, withoutTmux).
const LINUX = fixture("linux-2cpu.txt")
const NO_TMUX = fixture("linux-no-tmux.txt")

describe("parseHeadroom (the script's answer → figures)", () => {
  const facts = { memAvailableMb: 23227, memTotalMb: 24105, load1: 4.68, cpus: 2, disk: { path: "/root", freeMb: 70442 } }
  const table: ReadonlyArray<readonly [string, string, unknown]> = [
    ["a Linux host with tmux", LINUX, { ...facts, tmux: "3.3a" }],
    [
      "a host without tmux",
      NO_TMUX,
      { memAvailableMb: 21800, memTotalMb: 24105, load1: 8.07, cpus: 2, disk: { path: "/tmp/orch-ssh-7f7f49/home-a", freeMb: 70363 }, tmux: undefined }
    ],
    ["the data dir's absolute path, when the answer names it", `@data /home/orch/.orchestrator\n${LINUX}`, {
      ...facts,
      tmux: "3.3a",
      dataDir: "/home/orch/.orchestrator"
    }],
    ["a cut-off answer", LINUX.slice(0, LINUX.indexOf("@tmux")), "its answer was cut short"],
    [
      "a host without /proc/meminfo (not Linux)",
      LINUX.replace(/@meminfo\n[\s\S]*?@loadavg/, "@meminfo\n@loadavg"),
      "no MemAvailable in /proc/meminfo (orch needs Linux 3.14 or later on its hosts)"
    ],
    ["no CPU count", LINUX.replace("@cpus\n2\n", "@cpus\n"), "no CPU count (getconf _NPROCESSORS_ONLN)"],
    ["df failed", LINUX.replace(/@disk \/root\n[\s\S]*?@tmux/, "@disk /root\n@tmux"), "no free space from df -Pk"],
    [
      "orch runs in a memory group limited to 4 GB (a container): its figures, not the machine's",
      LINUX.replace("@end", "@groups\n4294967296 3758096384 268435456\n9223372036854771712 9000000000 0\n@end"),
      { ...facts, memAvailableMb: 768, memTotalMb: 4096, tmux: "3.3a" }
    ],
    [
      "a group without a limit changes nothing",
      LINUX.replace("@end", "@groups\nmax 3758096384 268435456\n@end"),
      { ...facts, tmux: "3.3a" }
    ],
    [
      "a file system and mount point with spaces",
      LINUX.replace("/dev/vda         264212084 34257436  72133476      33% /", "map auto home 264212084 34257436  72133476      33% /Volumes/My Disk"),
      { ...facts, tmux: "3.3a" }
    ]
  ]
  for (const [name, text, expected] of table) it(name, () => assert.deepStrictEqual(parseHeadroom(text), expected as never))
})

const live = sshHostsUnavailable === undefined ? it.live : it.live.skip

describe(`measureHeadroom on real hosts${sshHostsUnavailable ? ` (skipped: ${sshHostsUnavailable})` : ""}`, () => {
  live("one round trip per host reads memory, load, disk (of the data dir's nearest existing directory) and tmux", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"], { withoutTmux: ["b"] })
      const [a, b] = pool.hosts as [SshHost, SshHost]
      const data = yield* tempDir("orch-hosts-data-")
      const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(data, "ssh") })
      const remote = yield* measureHeadroom(connections, "a")
      assert.strictEqual(remote.disk.path, a.home)
      assert.strictEqual(remote.dataDir, `${a.home}/.orchestrator`, "the data dir that does not exist yet, named absolutely")
      assert.strictEqual(remote.tmux, /^tmux (\S+)/.exec(execFileSync("tmux", ["-V"], { encoding: "utf8" }))?.[1])
      assert.isAbove(remote.memAvailableMb, 0)
      assert.isAtLeast(remote.cpus, 1)
      const withoutTmux = yield* measureHeadroom(connections, "b")
      assert.isUndefined(withoutTmux.tmux)
      assert.strictEqual(withoutTmux.disk.path, b.home)
      const local = yield* measureHeadroom(connections, "local", join(data, "not", "yet"))
      assert.strictEqual(local.disk.path, data)
      assert.strictEqual(local.dataDir, join(realpathSync(data), "not", "yet"))
      const odd = yield* measureHeadroom(connections, "a", "~/it's here")
      assert.strictEqual(odd.disk.path, a.home)
      assert.strictEqual(odd.dataDir, `${a.home}/it's here`)
      assert.strictEqual(a.log().filter((line) => /Accepted publickey/.test(line)).length, 1)
    }).pipe(Effect.provide(NodeServices.layer)))
})
