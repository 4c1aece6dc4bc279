// One round trip to an SSH host through orch's shared connection (an OpenSSH ControlMaster, with the exact command
// line HostConnections uses: `ssh … sh -s` and the script on stdin) vs a fresh `ssh` connection per command, on a
// real sshd: a Unix user of its own, its own loopback address, a key and known_hosts made for the run (as
// test/support/ssh-hosts.ts does). Floor in the same run, interleaved: a local `sh -c true`.
// Needs root (it makes a Unix user and runs sshd); everything is removed at the end.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { controlPath, scriptText, sshArgs } from "../src/hosts/ssh-command.ts"
import { interleave, machine, median, ms, percentile, ratio, recordSection } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 40)
if (process.getuid() !== 0) {
  console.error("host-roundtrip: needs root (it makes a Unix user and runs sshd)")
  process.exit(1)
}

const root = mkdtempSync(join(tmpdir(), "orch-bench-ssh-"))
chmodSync(root, 0o755)
const user = `orchb-${randomBytes(3).toString("hex")}`
const home = join(root, "home")
const address = `127.${100 + (randomBytes(1)[0] % 100)}.${randomBytes(1)[0]}.10`
let sshd
let uid
/** The run's user's processes (its shells, and its sshd session processes once they dropped privileges). */
const processesOf = (owner) =>
  readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) === owner
    } catch {
      return false
    }
  }).map(Number)
const cleanup = () => {
  // Killing sshd and the user's processes closes the connection; the master exits with it.
  sshd?.kill("SIGKILL")
  if (uid !== undefined) {
    for (const pid of processesOf(uid)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
  }
  spawnSync("userdel", [user])
  rmSync(root, { recursive: true, force: true })
}
process.on("exit", cleanup)

try {
  if (spawnSync("test", ["-d", "/run/sshd"]).status !== 0) mkdirSync("/run/sshd", { mode: 0o755 })
  execFileSync("useradd", ["--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--user-group", "--password", "*", user])
  uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }))
  const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8" }))
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 })
  chmodSync(home, 0o700)
  const key = join(root, "id_ed25519")
  const hostKey = join(root, "host_key")
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey])
  writeFileSync(join(home, ".ssh", "authorized_keys"), readFileSync(`${key}.pub`), { mode: 0o600 })
  for (const path of [home, join(home, ".ssh"), join(home, ".ssh", "authorized_keys")]) chownSync(path, uid, gid)
  const port = 20000 + (randomBytes(2).readUInt16BE() % 20000)
  const config = join(root, "sshd_config")
  writeFileSync(
    config,
    [
      `ListenAddress ${address}`,
      `Port ${port}`,
      `HostKey ${hostKey}`,
      `PidFile ${join(root, "sshd.pid")}`,
      "UsePAM no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      `AllowUsers ${user}`
    ].join("\n") + "\n"
  )
  const knownHosts = join(root, "known_hosts")
  writeFileSync(knownHosts, `[${address}]:${port} ${readFileSync(`${hostKey}.pub`, "utf8").split(" ").slice(0, 2).join(" ")}\n`)
  sshd = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] })
  await new Promise((resolve, reject) => {
    sshd.stderr.on("data", (chunk) => /Server listening/.test(String(chunk)) && resolve())
    sshd.once("exit", (code) => reject(new Error(`sshd exited ${code}`)))
  })

  const host = {
    name: "bench",
    spec: { ssh: { user, hostname: address, port }, identityFile: key, sshOptions: { UserKnownHostsFile: knownHosts, IdentitiesOnly: "yes" } }
  }
  mkdirSync(join(root, "ssh"), { mode: 0o700 })
  const path = controlPath(join(root, "ssh"), host)
  const script = scriptText("true")
  const ssh = (args) => {
    const start = process.hrtime.bigint()
    const result = spawnSync("ssh", args, { input: script, encoding: "utf8" })
    if (result.status !== 0) throw new Error(`ssh exited ${result.status}: ${result.stderr}`)
    return Number(process.hrtime.bigint() - start) / 1e6
  }
  ssh(sshArgs(host, path, "establish"))
  const fresh = sshArgs(host, "none", "establish").map((arg) =>
    arg.startsWith("ControlMaster=") ? "ControlMaster=no" : arg.startsWith("ControlPersist=") ? "ControlPersist=no" : arg
  )
  const samples = interleave(RUNS, {
    floor: () => {
      const start = process.hrtime.bigint()
      spawnSync("sh", ["-c", "true"])
      return Number(process.hrtime.bigint() - start) / 1e6
    },
    master: () => ssh(sshArgs(host, path, "run")),
    fresh: () => ssh(fresh)
  })
  const row = (name, label) =>
    `| ${label} | ${ms(median(samples[name]))} | ${ms(percentile(samples[name], 95))} | ${ratio(median(samples[name]), median(samples.floor))} |`
  const body = `Measured by \`bench/host-roundtrip.mjs\` (${RUNS} runs each, interleaved; ${machine()}): a real sshd for a
Unix user of its own on a loopback address, ${spawnSync("ssh", ["-V"], { encoding: "utf8" }).stderr.trim().split(",")[0].replace("_", " ")}.
"Through the master" is the exact command line of \`HostConnections.run\` (\`ssh … sh -s\`, the script on stdin).

| Round trip (script \`true\`) | median | p95 | × local \`sh -c true\` |
|---|---|---|---|
${row("floor", "local `sh -c true` (floor)")}
${row("master", "through the host's ControlMaster")}
${row("fresh", "a fresh ssh connection (key exchange, auth)")}

Through the master a round trip is ${
    (median(samples.fresh) / median(samples.master)).toFixed(0)
  }× faster than a fresh connection. Over a real network both also pay
the link's latency, a fresh connection many more times (TCP, key exchange, authentication) than a round trip through the master.`
  recordSection("Host round trip (`bench/host-roundtrip.mjs`)", body)
  console.log(body)
} finally {
  cleanup()
  process.removeListener("exit", cleanup)
}
