/**
 * Records what an agent CLI shows while its model provider refuses it: the real CLI (the pinned devDependency) in a
 * private tmux server with a temp HOME, against the scripted model server answering as the provider's API does (429
 * with `retry-after` and the rate-limit headers, 529 overloaded, 500). It sends one message, captures the pane every
 * 200 ms until the turn ends (or the scenario's time is up), and writes into test/fixtures/agents/<cli>-<version>/:
 *
 * - `limit-<scenario>-retry-<n>.txt`: the first frame of each distinct retry line (digits aside), at most three;
 * - `limit-<scenario>-end.txt`: the last frame (the turn given up, answered, or still retrying when time was up);
 * - `limit-<scenario>.timeline`: when each distinct retry line was first seen (ms after the message was sent);
 * - `limit-<scenario>.hooks.jsonl` (Claude Code): the hooks that ended the turn (Stop, StopFailure).
 *
 * Paths, ids and ports are replaced by fixed ones, so a new recording differs only where the CLI does.
 *
 *   node test/agents/record-screens.ts claude [scenario ...]
 *   node test/agents/record-screens.ts codex [scenario ...]
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { claudeActivityFromScreen } from "../../src/plugins/agent/claude-screen.ts"
import { codexActivityFromScreen } from "../../src/plugins/agent/codex.ts"
import { withOrchHooks } from "../../src/plugins/agent/coding-agent.ts"
import { API_KEY as CLAUDE_KEY, CLAUDE_BIN, CLAUDE_VERSION, writeClaudeHome } from "./claude-env.ts"
import { API_KEY as CODEX_KEY, CODEX_BIN, CODEX_VERSION, writeCodexHome } from "./codex-env.ts"
import * as anthropic from "./model-server.ts"
import * as openai from "./responses-server.ts"

interface Scenario {
  readonly name: string
  readonly what: string
  /** Starts the model server refusing as the scenario says; answers normally once the refusals are spent. */
  readonly serve: () => Promise<{ readonly url: string; readonly refused: ReadonlyArray<number>; readonly close: () => Promise<void> }>
  /** Extra environment for the CLI. */
  readonly env?: Readonly<Record<string, string>>
  /** How long to record at most (ms). */
  readonly forMs: number
}

interface Cli {
  readonly name: string
  readonly fixtures: string
  readonly scenarios: ReadonlyArray<Scenario>
  readonly prepare: (root: string, repo: string, home: string, url: string) => { readonly command: string; readonly env: Record<string, string> }
  readonly isReady: (screen: string) => boolean
  /** Whether the turn is over, from the screen and the hooks written so far. */
  readonly ended: (screen: string, hooks: ReadonlyArray<Record<string, unknown>>) => boolean
}

const MIN = 60_000
const SESSION_ID = "11111111-2222-3333-4444-555555555555"

const claudeServer = (error: anthropic.ApiError, times?: number) => async () => {
  const server = await anthropic.startModelServer([{ when: "say hi", steps: [{ text: "Hi." }] }])
  server.refuse(error, times !== undefined ? { times } : {})
  return server
}

const claude: Cli = {
  name: "claude",
  fixtures: `claude-code-${CLAUDE_VERSION}`,
  scenarios: [
    { name: "429-retry-after-1s", what: "a 429 with retry-after: 1, every attempt", serve: claudeServer(anthropic.rateLimited(1)), forMs: 5 * MIN },
    {
      name: "429-retry-after-35s",
      what: "a 429 with retry-after: 35, three times, then an answer",
      serve: claudeServer(anthropic.rateLimited(35), 3),
      forMs: 4 * MIN
    },
    {
      name: "429-retry-after-60s",
      what: "a 429 with retry-after: 60, once, then an answer",
      serve: claudeServer(anthropic.rateLimited(60), 1),
      forMs: 3 * MIN
    },
    { name: "429-retry-after-90s", what: "a 429 with retry-after: 90, every attempt", serve: claudeServer(anthropic.rateLimited(90)), forMs: 2 * MIN },
    { name: "429-retry-after-3600s", what: "a 429 with retry-after: 3600, every attempt", serve: claudeServer(anthropic.rateLimited(3600)), forMs: 2 * MIN },
    {
      name: "429-retry-after-3600s-watchdog",
      what: "a 429 with retry-after: 3600, every attempt, with CLAUDE_CODE_RETRY_WATCHDOG=1 (it waits out long limits)",
      serve: claudeServer(anthropic.rateLimited(3600)),
      env: { CLAUDE_CODE_RETRY_WATCHDOG: "1" },
      forMs: 30_000
    },
    { name: "529", what: "a 529 overloaded without retry-after, every attempt", serve: claudeServer(anthropic.overloaded()), forMs: 5 * MIN },
    {
      name: "529-retry-after-20s",
      what: "a 529 overloaded with retry-after: 20, every attempt",
      serve: claudeServer(anthropic.overloaded(20)),
      forMs: 6 * MIN
    },
    { name: "500", what: "a 500 api_error, every attempt", serve: claudeServer(anthropic.serverError()), forMs: 5 * MIN }
  ],
  prepare: (root, repo, home, url) => {
    writeClaudeHome(home, [repo])
    mkdirSync(join(repo, ".claude"), { recursive: true })
    writeFileSync(join(repo, ".claude", "settings.local.json"), JSON.stringify(withOrchHooks({}, join(root, "activity.jsonl")), null, 2))
    return {
      command: `${CLAUDE_BIN} --dangerously-skip-permissions --session-id ${SESSION_ID}`,
      env: {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: CLAUDE_KEY,
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        IS_SANDBOX: "1"
      }
    }
  },
  isReady: (screen) => claudeActivityFromScreen(screen) === "ready",
  ended: (_, hooks) => hooks.some((hook) => hook.event === "Stop" || hook.event === "StopFailure")
}

const codexServer = (error: openai.ApiError, times?: number) => async () => {
  const server = await openai.startResponsesServer([{ when: "say hi", steps: [{ text: "Hi." }] }])
  server.refuse(error, times !== undefined ? { times } : {})
  return server
}

const codex: Cli = {
  name: "codex",
  fixtures: `codex-${CODEX_VERSION}`,
  scenarios: [
    { name: "429-retry-after-1s", what: "a 429 with retry-after: 1, every attempt", serve: codexServer(openai.rateLimited(1)), forMs: 3 * MIN },
    { name: "429-retry-after-35s", what: "a 429 with retry-after: 35, every attempt", serve: codexServer(openai.rateLimited(35)), forMs: 5 * MIN },
    { name: "429-retry-after-3600s", what: "a 429 with retry-after: 3600, every attempt", serve: codexServer(openai.rateLimited(3600)), forMs: 2 * MIN },
    { name: "503-overloaded", what: "a 503 server_is_overloaded, every attempt", serve: codexServer(openai.overloaded()), forMs: 3 * MIN },
    { name: "500", what: "a 500 internal_server_error, every attempt", serve: codexServer(openai.serverError()), forMs: 3 * MIN }
  ],
  prepare: (_, repo, home, url) => {
    writeCodexHome(home, url, [repo])
    return { command: `${CODEX_BIN} --no-daemon --dangerously-bypass-approvals-and-sandbox`, env: { OPENAI_API_KEY: CODEX_KEY } }
  },
  isReady: (screen) => codexActivityFromScreen(screen) === "ready",
  // Codex has no hooks: its turn is over when its input box shows again with nothing working.
  ended: (screen) => codexActivityFromScreen(screen) === "ready" || /■/.test(screen)
}

const RETRY = /· (retrying in |retrying…|retrying,|will retry in|next try in)|reconnecting \d+\/\d+|Reconnecting\.\.\. \d+\/\d+/

/** The line of a frame that says it retries, digits and spinner glyph aside: frames with the same key show the same state. */
const retryKey = (screen: string): string | undefined =>
  screen.split("\n").find((line) => RETRY.test(line))?.replace(/\d+/g, "#").replace(/^[^\p{L}\p{N}#]+/u, "").trim()

const readHooks = (file: string): Array<Record<string, unknown>> =>
  existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) : []

const record = async (cli: Cli, scenario: Scenario, dir: string) => {
  const root = mkdtempSync("/tmp/rl-")
  const repo = join(root, "repo")
  const home = join(root, "home")
  const socket = join(root, "tmux.sock")
  mkdirSync(repo)
  mkdirSync(home)
  execFileSync("git", ["init", "-q", repo])
  const server = await scenario.serve()
  const sanitize = (text: string) =>
    text.replaceAll(home, "/work/home").replaceAll(repo, "/work/repo").replaceAll(repo.replaceAll("/", "-"), "-work-repo").replaceAll(root, "/tmp/rl").replace(
      /127\.0\.0\.1:\d+/g,
      "127.0.0.1:47113"
    )
  const tmux = (...args: Array<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" })
  const capture = () => tmux("capture-pane", "-p", "-J", "-t", "rec")
  try {
    const { command, env } = cli.prepare(root, repo, home, server.url)
    const assignments = Object.entries({ HOME: home, ...env, ...scenario.env }).map(([name, value]) => `${name}='${value}'`)
    tmux("new-session", "-d", "-s", "rec", "-x", "160", "-y", "45", "-c", repo, `env ${assignments.join(" ")} ${command}`)
    const readyBy = Date.now() + 60_000
    while (!cli.isReady(capture())) {
      if (Date.now() > readyBy) throw new Error(`${cli.name} did not get to its input: ${capture()}`)
      await sleep(200)
    }
    tmux("send-keys", "-t", "rec", "-l", "say hi")
    await sleep(300)
    tmux("send-keys", "-t", "rec", "Enter")
    const sentAt = Date.now()
    const frames = new Map<string, { readonly at: number; readonly screen: string }>()
    let last = capture()
    let endedAt: number | undefined
    while (Date.now() - sentAt < scenario.forMs) {
      await sleep(200)
      last = capture()
      const key = retryKey(last)
      if (key !== undefined && !frames.has(key)) frames.set(key, { at: Date.now() - sentAt, screen: last })
      const hooks = readHooks(join(root, "activity.jsonl"))
      if (endedAt === undefined && Date.now() - sentAt > 1000 && cli.ended(last, hooks)) endedAt = Date.now()
      // The screen after the end settles within a second (the error drawn above the input box).
      if (endedAt !== undefined && Date.now() - endedAt > 1500) break
    }
    const base = `limit-${scenario.name}`
    for (const file of readdirSync(dir).filter((name) => name.startsWith(`${base}-retry-`))) rmSync(join(dir, file))
    ;[...frames.values()].slice(0, 3).forEach((frame, i) => writeFileSync(join(dir, `${base}-retry-${i + 1}.txt`), sanitize(frame.screen)))
    writeFileSync(join(dir, `${base}-end.txt`), sanitize(last))
    const ending = endedAt === undefined ? `still going after ${scenario.forMs} ms` : `ended at ${endedAt - sentAt} ms`
    const timeline = [
      `## ${scenario.name}: ${scenario.what} (${ending}; refused ${server.refused.length} calls)`,
      ...[...frames].map(([key, frame]) => `${String(frame.at).padStart(7)} ms  ${sanitize(key)}`),
      ""
    ].join("\n")
    writeFileSync(join(dir, `${base}.timeline`), timeline)
    const endings = readHooks(join(root, "activity.jsonl")).filter((hook) => hook.event === "Stop" || hook.event === "StopFailure")
    if (endings.length > 0) writeFileSync(join(dir, `${base}.hooks.jsonl`), endings.map((hook) => `${sanitize(JSON.stringify(hook))}\n`).join(""))
    console.log(timeline)
  } finally {
    try {
      tmux("kill-server")
    } catch {
      // already gone
    }
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
}

const [which, ...names] = process.argv.slice(2)
const cli = [claude, codex].find((c) => c.name === which)
if (cli === undefined) {
  console.error("usage: node test/agents/record-screens.ts claude|codex [scenario ...]")
  process.exit(2)
}
const chosen = cli.scenarios.filter((s) => names.length === 0 || names.includes(s.name))
// Scenarios run side by side: most of their time is the CLI waiting out a retry.
await Promise.all(chosen.map((scenario, i) => sleep(i * 3000).then(() => record(cli, scenario, resolve("test/fixtures/agents", cli.fixtures)))))
