// Sessions on other hosts, on real sshd hosts made for the run (test/support/ssh-hosts.ts: Unix users of their own
// on loopback addresses): (1) `orch spawn --host a` against `orch spawn --host local`, interleaved, and one round trip
// through the host's connection in the same run (target: remote ≤ local + 2 round trips); (2) the supervisor at rest
// with 50 sessions spread on two hosts: its CPU and RSS, the ssh processes (target: one master per host), and round
// trips per probe cycle (target: one per host), counted by each host's sshd (its ~/.ssh/rc runs once per channel).
// Needs root. Agent: `command`, a shell reading its input.
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { HostConnections } from "../src/hosts/HostConnections.ts"
import { makeSshHosts } from "../test/support/ssh-hosts.ts"
import { interleave, machine, median, ms, ORCH, percentile, recordSection } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 8)
const AT_REST = Number(process.env.BENCH_SESSIONS ?? 50)
const REST_SECONDS = 60
if (process.getuid() !== 0) {
  console.error("hosts: needs root (it makes Unix users and runs sshd)")
  process.exit(1)
}

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" })
const ticks = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ").slice(11, 13).map(Number).reduce((a, b) => a + b, 0)
const rssMb = (pid) => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024
/** orch's ssh processes: masters (ssh titles one "ssh: <ControlPath> [mux]") and others (ControlPath= on the command line). */
const sshProcesses = () =>
  readdirSync("/proc").filter((p) => /^\d+$/.test(p)).flatMap((p) => {
    try {
      const args = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")
      if (/^ssh: .* \[mux\]$/.test(args.join(" ").trim())) return ["master"]
      return args[0] === "ssh" && args.some((a) => a.startsWith("ControlPath=")) ? ["other"] : []
    } catch {
      return []
    }
  })

const program = Effect.gen(function*() {
  const pool = yield* makeSshHosts(["a", "b"])
  const dir = pool.dir
  const origin = join(dir, "origin.git")
  const seed = join(dir, "seed")
  mkdirSync(seed)
  git(seed, "init", "-q", "-b", "main")
  writeFileSync(join(seed, "README.md"), "hello\n")
  git(seed, "add", ".")
  git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seed")
  git(dir, "clone", "-q", "--bare", seed, origin)
  execFileSync("chmod", ["-R", "a+rwX", origin])
  const checkout = join(dir, "proj")
  git(dir, "clone", "-q", origin, checkout)
  for (const host of pool.hosts) host.shell("git config --global safe.directory '*'")
  const home = join(dir, "home")
  const tmux = join(dir, "tmux")
  mkdirSync(home)
  mkdirSync(tmux)
  chmodSync(home, 0o755)
  writeFileSync(
    join(checkout, "orchestrator.yaml"),
    [
      "defaults: { sessionMemoryMb: 256 }",
      "hosts:",
      ...pool.hosts.flatMap((host) => [
        `  ${host.name}:`,
        `    ssh: ${host.spec.ssh.user}@${host.spec.ssh.hostname}:${host.spec.ssh.port}`,
        `    identityFile: ${host.spec.identityFile}`,
        `    sshOptions: { UserKnownHostsFile: ${host.spec.sshOptions.UserKnownHostsFile}, IdentitiesOnly: "yes" }`
      ]),
      "projects:",
      "  proj:",
      "    repo: t/proj",
      `    path: ${checkout}`,
      "    tracker: { plugin: none }",
      "    scm: { plugin: none }",
      "    agent: command",
      "    hosts: [local, a, b]",
      "    agentConfig: { command: 'while IFS= read -r l; do :; done' }"
    ].join("\n") + "\n"
  )
  const env = { ...process.env, HOME: home, TMUX_TMPDIR: tmux }
  const orch = (...args) => {
    const start = process.hrtime.bigint()
    const run = spawnSync(process.execPath, [ORCH, ...args], { cwd: checkout, env, encoding: "utf8" })
    if (run.status !== 0) throw new Error(`orch ${args.join(" ")}: ${run.stdout}${run.stderr}`)
    return { ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: run.stdout }
  }

  // (1) Spawn on a host against spawn here; and one round trip through the host's connection.
  let n = 0
  const spawns = interleave(RUNS, {
    local: () => orch("spawn", "proj", "--task", `local ${++n}`, "--host", "local").ms,
    remote: () => orch("spawn", "proj", "--task", `remote ${++n}`, "--host", "a").ms
  })
  const trips = yield* Effect.scoped(Effect.gen(function*() {
    const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(home, ".orchestrator", "ssh") })
    const samples = []
    for (let i = 0; i < RUNS * 5; i++) {
      const start = process.hrtime.bigint()
      yield* connections.run("a", "true")
      samples.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    return samples
  }))
  for (const line of orch("status", "--json").stdout && JSON.parse(orch("status", "--json").stdout)) orch("session", "kill", line.sessionId)

  // (2) 50 sessions on a and b (placement spreads them), the supervisor at rest.
  for (let first = 1; first <= AT_REST; first += 5) {
    const issues = Array.from({ length: Math.min(5, AT_REST - first + 1) }, (_, i) => String(1000 + first + i))
    orch("batch-spawn", "proj", ...issues)
  }
  const live = JSON.parse(orch("status", "--json").stdout).filter((r) => !["killed"].includes(r.status))
  const perHost = Object.fromEntries(["local", "a", "b"].map((h) => [h, live.filter((r) => (r.host ?? "local") === h).length]))
  for (const host of pool.hosts) host.shell(`printf '%s\\n' 'date +%s.%N >> ~/trips' > ~/.ssh/rc; rm -f ~/trips`)
  const started = orch("start", "proj", "--detach", "--no-open")
  const pid = Number(/pid (\d+)/.exec(started.stdout)[1])
  yield* Effect.sleep("15 seconds") // adoption, the first probes, the first headroom reads
  const before = { ticks: ticks(pid), at: process.hrtime.bigint(), trips: pool.hosts.map((h) => Number(h.shell("cat ~/trips 2>/dev/null | wc -l").trim())) }
  const rss = []
  for (let s = 0; s < REST_SECONDS; s += 5) {
    yield* Effect.sleep("5 seconds")
    rss.push(rssMb(pid))
  }
  const seconds = Number(process.hrtime.bigint() - before.at) / 1e9
  const cpu = ((ticks(pid) - before.ticks) / 100 / seconds) * 100
  const tripsPerHost = pool.hosts.map((h, i) => Number(h.shell("cat ~/trips 2>/dev/null | wc -l").trim()) - before.trips[i])
  const processes = sshProcesses()
  orch("stop")
  for (const record of JSON.parse(orch("status", "--json").stdout)) if (record.status !== "killed") orch("session", "kill", record.sessionId)

  const rtt = median(trips)
  const local = median(spawns.local)
  const remote = median(spawns.remote)
  const cycles = seconds / 5
  recordSection(
    "Hosts (`bench/hosts.mjs`)",
    `
${machine()}; ${RUNS} spawns each, interleaved; two sshd hosts on loopback addresses (Unix users of their own), ${
      new Date().toISOString().slice(0, 10)
    }. Agent: \`command\` (a shell reading its input).

| Measure | Result | Target |
|---|---|---|
| \`orch spawn --host local\` (CLI alone) | median ${ms(local)}, p95 ${ms(percentile(spawns.local, 95))} | |
| \`orch spawn --host a\` (CLI alone) | median ${ms(remote)}, p95 ${ms(percentile(spawns.remote, 95))} | |
| one round trip through a's connection | median ${ms(rtt)}, p95 ${ms(percentile(trips, 95))} | |
| remote − local | ${ms(remote - local)} = ${((remote - local) / rtt).toFixed(1)} round trips | ≤ 2 round trips: ${
      remote - local <= 2 * rtt ? "met" : "NOT met"
    } |
| supervisor at rest, ${live.length} sessions (${Object.entries(perHost).map(([h, c]) => `${h} ${c}`).join(", ")}), over ${seconds.toFixed(0)} s | CPU ${
      cpu.toFixed(2)
    }%, RSS median ${median(rss).toFixed(0)} MB | |
| ssh processes of orch | ${processes.filter((p) => p === "master").length} masters, ${
      processes.filter((p) => p === "other").length
    } others | one master per host: ${processes.filter((p) => p === "master").length === pool.hosts.length ? "met" : "NOT met"} |
| round trips per probe cycle (5 s), per host | ${tripsPerHost.map((t, i) => `${pool.hosts[i].name} ${(t / cycles).toFixed(2)}`).join(", ")} (${
      cycles.toFixed(0)
    } cycles; the minute's headroom read and size \`ps\` ride the probe) | one per host |

A spawn on a host makes two round trips to it (src/plugins/host-start.ts): the headroom read (its first command, which
also makes or joins the connection, and names orch's data dir there), then one script that makes the worktree (fetch,
lock, \`worktree add\`, \`postCreate\`, symlinks), writes the agent's files, starts the tmux session and looks at the agent
150 ms later. A local spawn runs the same steps as separate git and tmux processes from the CLI, so the host's one
shell script can be as fast as they are; the difference left is within the noise of a few runs.
`
  )
  console.log({ local, remote, rtt, perHost, cpu, rss: median(rss), processes, tripsPerHost, cycles })
})

await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(NodeServices.layer)))
