// How long a supervisor takes to answer a Ping, which is how orch decides that one runs (src/ipc/liveness.ts;
// it waits 500 ms, then once more 1.5 s, for a socket that took the connection). Three moments:
// - idle: a supervisor with 20 sessions, nothing else happening;
// - busy: four CPU-bound processes on the machine while the supervisor spawns 20 more sessions and delivers 10
//   messages;
// - just bound: the first Ping the moment its socket appears, while it finishes starting.
// Each Ping opens its own connection (as a command does), over the raw protocol (newline-delimited JSON).
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { machine, ms, ORCH, percentile, recordSection, removeSandbox } from "./lib.mjs"

const PINGS = Number(process.env.BENCH_PINGS ?? 200)
const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))

/** One Ping on a fresh connection: milliseconds until the answer. */
const ping = (socket) =>
  new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const client = connect(socket, () => client.write(`${JSON.stringify({ _tag: "Request", id: "1", tag: "Ping", payload: null, headers: [] })}\n`))
    let buffer = ""
    client.setEncoding("utf8")
    client.on("data", (chunk) => {
      buffer += chunk
      if (!buffer.includes("\n")) return
      client.destroy()
      const answer = JSON.parse(buffer.slice(0, buffer.indexOf("\n")))
      if (answer.exit?._tag !== "Success") reject(new Error(`ping failed: ${buffer}`))
      else resolve(Number(process.hrtime.bigint() - start) / 1e6)
    })
    client.on("error", reject)
  })

const pings = async (socket, count, gapMs) => {
  const samples = []
  for (let i = 0; i < count; i++) {
    samples.push(await ping(socket))
    await sleep(gapMs)
  }
  return samples
}

const row = (label, samples) =>
  `| ${label} | ${samples.length} | ${ms(percentile(samples, 50))} | ${ms(percentile(samples, 99))} | ${ms(Math.max(...samples))} |`

const root = mkdtempSync(join(tmpdir(), "orch-bench-ping-"))
const home = join(root, "home")
const tmuxSocket = join(root, "tmux.sock")
const socket = join(home, ".orchestrator", "orch.sock")
const repo = join(root, "app")
execFileSync("git", ["init", "-q", "--bare", "-b", "main", join(root, "origin.git")])
execFileSync("git", ["init", "-q", "-b", "main", repo])
execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "--allow-empty", "-m", "init"])
execFileSync("git", ["-C", repo, "remote", "add", "origin", join(root, "origin.git")])
execFileSync("git", ["-C", repo, "push", "-q", "origin", "main"])
const config = join(root, "orchestrator.yaml")
writeFileSync(
  config,
  `projects:\n  app:\n    repo: acme/app\n    path: ${repo}\n    agent: command\n    agentConfig: { command: cat }\n    tracker: { plugin: repohost, apiUrl: "http://127.0.0.1:9" }\n`
)
const env = { ...process.env, HOME: home, ORCH_TMUX_SOCKET: tmuxSocket, ORCH_CONFIG_PATH: config }
delete env.TMUX
const orch = (args) => {
  const result = spawnSync(process.execPath, [ORCH, ...args], { env, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`orch ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}
const orchAsync = (args) => new Promise((resolve) => spawn(process.execPath, [ORCH, ...args], { env, stdio: "ignore" }).on("close", resolve))

const burners = []
try {
  orch(["batch-spawn", "app", ...Array.from({ length: 20 }, (_, i) => String(i + 1))])

  // Just bound: ping as soon as the socket appears.
  const starting = orchAsync(["start", "app", "--detach", "--no-open"])
  while (!existsSync(socket)) await sleep(1)
  const first = [await ping(socket)]
  await starting
  await sleep(5000) // adoption and the first probe cycles

  const idle = await pings(socket, PINGS, 20)

  for (let i = 0; i < 4; i++) burners.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }))
  const load = Promise.all([
    orchAsync(["batch-spawn", "app", ...Array.from({ length: 20 }, (_, i) => String(i + 21))]),
    ...Array.from({ length: 10 }, (_, i) => orchAsync(["send", `app-${i + 1}`, `hello ${i}`]))
  ])
  const busy = await pings(socket, PINGS, 20)
  await load
  for (const burner of burners) burner.kill()

  const body = [
    `${machine()}; each Ping on a fresh connection, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| moment | pings | p50 | p99 | max |",
    "|---|---|---|---|---|",
    row("idle, 20 sessions", idle),
    row("busy: 4 CPU hogs, 20 spawns, 10 sends", busy),
    row("the moment its socket appears", first),
    "",
    "orch waits 500 ms for an answer, then once more 1.5 s for a socket that took the connection; a dead supervisor's",
    "socket refuses the connection at once, so that case waits for neither."
  ].join("\n")
  recordSection("Supervisor ping (`bench/supervisor-ping.mjs`)", body)
  console.log(body)
} finally {
  for (const burner of burners) burner.kill()
  spawnSync(process.execPath, [ORCH, "stop", "--kill-sessions"], { env, stdio: "ignore" })
  removeSandbox(root, tmuxSocket)
}
