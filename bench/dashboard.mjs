// The dashboard with 200 live sessions (tmux + the `command` agent) under one supervisor, in headless Chromium:
// - first load: from navigation to the board painted with every card, against the floor of a static page with
//   the same number of cards from a bare node:http server;
// - change → DOM: an agent signal appended to a session's activity file, until its card shows the new status on
//   the open page, p50/p95; beside it, until the supervisor's event is in the log (what the page waits on).
// Targets: first load under 1 s; change → DOM under 250 ms.
import { execFileSync, spawnSync } from "node:child_process"
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import { freePort, machine, median, ms, ORCH, percentile, ratio, recordSection, removeSandbox } from "./lib.mjs"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200)
const LOADS = Number(process.env.BENCH_LOADS ?? 10)
const CHANGES = Number(process.env.BENCH_CHANGES ?? 40)
const CHROMIUM = "/usr/bin/chromium"
const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))
const root = mkdtempSync(join(tmpdir(), "orch-bench-dash-"))
const home = join(root, "home")
const socket = join(root, "tmux.sock")
const repo = join(root, "app")
execFileSync("git", ["init", "-q", "--bare", "-b", "main", join(root, "origin.git")])
execFileSync("git", ["init", "-q", "-b", "main", repo])
execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "--allow-empty", "-m", "init"])
execFileSync("git", ["-C", repo, "remote", "add", "origin", join(root, "origin.git")])
execFileSync("git", ["-C", repo, "push", "-q", "origin", "main"])
const [port, terminalPort, directTerminalPort, floorPort] = [await freePort(), await freePort(), await freePort(), await freePort()]
const config = join(root, "orchestrator.yaml")
writeFileSync(
  config,
  [
    `port: ${port}`,
    `terminalPort: ${terminalPort}`,
    `directTerminalPort: ${directTerminalPort}`,
    "projects:",
    "  app:",
    "    repo: acme/app",
    `    path: ${repo}`,
    "    agent: command",
    "    agentConfig: { command: cat }",
    "    tracker: { plugin: repohost, apiUrl: \"http://127.0.0.1:9\" }",
    ""
  ].join("\n")
)
const env = { ...process.env, HOME: home, ORCH_TMUX_SOCKET: socket, ORCH_CONFIG_PATH: config }
delete env.TMUX
const orch = (args) => {
  const result = spawnSync(process.execPath, [ORCH, ...args], { env, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`orch ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}
const dataDir = join(home, ".orchestrator")

// The floor: a static page with as many cards, from a server that does nothing else.
const floorPage = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>${
  Array.from({ length: SESSIONS }, (_, i) => `<article data-session="app-${i + 1}"><b>app-${i + 1}</b> working · feat/${i + 1} · issue ${i + 1}</article>`)
    .join("")
}</body></html>`
const floor = createServer((_, response) => response.writeHead(200, { "content-type": "text/html" }).end(floorPage)).listen(floorPort, "127.0.0.1")

let browser
try {
  for (let i = 0; i < SESSIONS; i += 25) orch(["batch-spawn", "app", ...Array.from({ length: Math.min(25, SESSIONS - i) }, (_, k) => String(i + k + 1))])
  orch(["start", "app", "--detach", "--no-open"])
  await sleep(5000) // adoption and the first probe cycle
  const token = readFileSync(join(dataDir, "token"), "utf8").trim()
  const base = `http://127.0.0.1:${port}`
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })

  /** Milliseconds from navigation start until `cards` cards are in the page, seen at the next frame. */
  const load = async (url, cards, cookie) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    if (cookie) await context.addCookies([{ name: "orch_token", value: token, url: base }])
    const page = await context.newPage()
    await page.goto(url, { waitUntil: "commit" })
    const painted = await page.waitForFunction(
      (n) => document.querySelectorAll("article[data-session]").length >= n && performance.now(),
      cards,
      { polling: "raf", timeout: 30_000 }
    )
    const at = await painted.jsonValue()
    await context.close()
    return at
  }
  const loads = { orch: [], floor: [] }
  await load(`${base}/`, SESSIONS, true) // warm-up: the supervisor's first snapshot, Chromium's start
  await load(`http://127.0.0.1:${floorPort}/`, SESSIONS, false)
  for (let i = 0; i < LOADS; i++) {
    loads.orch.push(await load(`${base}/`, SESSIONS, true))
    loads.floor.push(await load(`http://127.0.0.1:${floorPort}/`, SESSIONS, false))
  }

  // Change → DOM on an open board with every session on it.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.addCookies([{ name: "orch_token", value: token, url: base }])
  const page = await context.newPage()
  await page.goto(`${base}/`)
  await page.waitForFunction((n) => document.querySelectorAll("article[data-session]").length >= n, SESSIONS, { timeout: 30_000 })
  const events = join(dataDir, "events.jsonl")
  const toDom = []
  const toEvent = []
  for (let i = 0; i < CHANGES; i++) {
    const session = `app-${(i % SESSIONS) + 1}`
    const [activity, status, type] = Math.floor(i / SESSIONS) % 2 === 0
      ? ["waiting_input", "needs_input", "session.needs_input"]
      : ["active", "working", "session.working"]
    // The page notes (in wall time) when the card shows the new status; the observer is in place before the change.
    await page.evaluate(([id, want]) => {
      window.shownAt = undefined
      const shows = () => document.querySelector(`article[data-session="${id}"]`)?.getAttribute("data-status") === want
      const observer = new MutationObserver(() => {
        if (!shows()) return
        window.shownAt = Date.now()
        observer.disconnect()
      })
      observer.observe(document.body, { subtree: true, childList: true, attributes: true })
    }, [session, status])
    const before = readFileSync(events, "utf8").length
    const start = Date.now()
    appendFileSync(join(dataDir, "sessions", "app", session, "activity.jsonl"), `${JSON.stringify({ activity, ts: new Date().toISOString() })}\n`)
    for (;;) {
      if (readFileSync(events, "utf8").slice(before).includes(`"type":"${type}","sessionId":"${session}"`)) break
      if (Date.now() - start > 10_000) throw new Error(`no ${type} for ${session}`)
      await sleep(1)
    }
    toEvent.push(Date.now() - start)
    const shownAt = await page.waitForFunction(() => window.shownAt, undefined, { timeout: 10_000 })
    toDom.push((await shownAt.jsonValue()) - start)
    await sleep(50)
  }
  await context.close()

  const loadMedian = median(loads.orch)
  const p95 = percentile(toDom, 95)
  const body = [
    `${machine()}, Chromium ${browser.version()} headless; ${SESSIONS} live sessions (tmux, agent \`command\`: cat), ${LOADS} loads each, ${CHANGES} changes, ${
      new Date().toISOString().slice(0, 10)
    }.`,
    "",
    "| measure | median | p95 | against |",
    "|---|---|---|---|",
    `| first load: navigation → board painted with ${SESSIONS} cards | ${ms(loadMedian)} | ${ms(percentile(loads.orch, 95))} | floor ${
      ms(median(loads.floor))
    } (${ratio(loadMedian, median(loads.floor))}) |`,
    `| floor: a static page of ${SESSIONS} cards from a bare node:http server | ${ms(median(loads.floor))} | ${ms(percentile(loads.floor, 95))} | |`,
    `| change → DOM: agent signal → the card's new status on the open page | ${ms(median(toDom))} | ${ms(p95)} | change → event in the log ${
      ms(median(toEvent))
    } (p95 ${ms(percentile(toEvent, 95))}) |`,
    "",
    `Targets: first load under 1 s — ${percentile(loads.orch, 95) < 1000 ? "met" : "NOT met"} (p95); change → DOM under 250 ms — ${
      p95 < 250 ? "met" : "NOT met"
    } (p95). ` +
    "The page gets everything from one Server-Sent Events stream: a snapshot, then each record as the supervisor writes it; nothing polls."
  ].join("\n")
  recordSection("Dashboard (`bench/dashboard.mjs`)", body)
  console.log(body)
} finally {
  await browser?.close()
  floor.close()
  try {
    orch(["stop"])
  } catch {}
  removeSandbox(root, socket)
}
