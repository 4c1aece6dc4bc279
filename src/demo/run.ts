/**
 * `orch demo`: issue to merged PR on this machine, with no account and no network. Makes the sandbox, starts
 * the emulated repohost, starts a real supervisor (`orch start --detach`) and spawns three sessions of the
 * scripted agent, then plays the reviewer and prints every event as it happens, until every step of the
 * scenario has happened (or the time is up). Ends with a summary; `--headless` exits 0 only if all happened.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { dirname, join } from "node:path"
import { canListen } from "../dashboard/listen-error.ts"
import { openOnThisMachine } from "../dashboard/open.ts"
import { storePaths } from "../store/paths.ts"
import { type Emulator, startEmulator } from "./emulator/server.ts"
import { type DemoSandbox, makeSandbox, writeDemoConfig } from "./sandbox.ts"
import { ciVerdict, DEMO_ISSUES, DEMO_PROJECT, DEMO_REPO, type DemoEvent, demoSteps, reviewerMove, type Story, WEBHOOK_SECRET_VAR } from "./scenario.ts"

export class DemoFailed extends Schema.TaggedError<DemoFailed>()("DemoFailed", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return this.reason
  }
}

export interface DemoOptions {
  readonly headless: boolean
  readonly keep: boolean
  readonly port: number | undefined
  readonly timeoutSeconds: number
}

const cli = () => realpathSync(process.argv[1] ?? "orch")

const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Runs this orch with the sandbox's environment; its output, and a failure if it exits non-zero. */
const orch = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string>) =>
  Effect.callback<string, DemoFailed>((resume) => {
    const child = spawn(process.execPath, [cli(), ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (out += chunk))
    child.on("close", (code) =>
      resume(
        code === 0
          ? Effect.succeed(out.trim())
          : Effect.fail(new DemoFailed({ reason: `orch ${args.join(" ")} failed: ${out.trim().replace(/^orch: /gm, "")}` }))
      ))
  })

/** The commit's TODO lines, as `path:line: text` (the demo CI's rule). */
const todosAt = (gitDir: string, sha: string): Array<string> => {
  try {
    return execFileSync("git", ["--git-dir", gitDir, "grep", "-n", "TODO", sha], { encoding: "utf8" }).trim().split("\n").map((line) =>
      line.slice(sha.length + 1)
    )
  } catch {
    return []
  }
}

const readEvents = (dataDir: string): Array<DemoEvent & { readonly timestamp: string; readonly message?: string; readonly prNumber?: number }> => {
  const file = storePaths(dataDir).events
  if (!existsSync(file)) return []
  return readFileSync(file, "utf8").split("\n").filter(Boolean).flatMap((line) => {
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })
}

const inboxCount = (dataDir: string) => {
  const file = storePaths(dataDir).inbox
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((line) => line.includes("\"priority\"")).length : 0
}

// Colours only on a terminal, and never with NO_COLOR set.
const color = (code: string) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[${code}m` : "")
const DIM = color("2")
const BOLD = color("1")
const RESET = color("0")
const GREEN = color("32")
const RED = color("31")
const YELLOW = color("33")

/** One line per event worth seeing. */
const describeEvent = (e: ReturnType<typeof readEvents>[number]): string | undefined => {
  const pr = e.prNumber !== undefined ? `PR #${e.prNumber}` : "the PR"
  const text: Record<string, string | undefined> = {
    "session.spawned": e.data?.role === "orchestrator" ? "orchestrator session started" : `spawned: agent working on branch ${String(e.data?.branch)}`,
    "pr.created": `${pr} opened`,
    "ci.failed": `${RED}CI failed${RESET} on ${pr}`,
    "ci.passed": `${GREEN}CI passed${RESET} on ${pr}`,
    "review.changes_requested": `${YELLOW}changes requested${RESET} on ${pr}`,
    "review.approved": `${GREEN}approved${RESET}: ${pr}`,
    "reaction.triggered": `reaction ${BOLD}${e.reaction}${RESET} → ${e.action}${e.data?.attempt !== undefined ? ` (attempt ${String(e.data.attempt)})` : ""}`,
    "reaction.escalated": `${RED}escalated${RESET}: ${e.reaction}`,
    "pr.merged": `${GREEN}merged${RESET}: ${pr}`,
    "session.cleaned": `cleaned up (${e.message ?? "done"})`,
    "notification.sent": `inbox: ${e.message ?? String(e.data?.title ?? "notification")}`,
    "session.exited": `${RED}agent exited${RESET}`
  }
  const line = text[e.type]
  return line === undefined ? undefined : `${DIM}${e.timestamp.slice(11, 19)}${RESET}  ${(e.sessionId ?? "orch").padEnd(18)} ${line}`
}

/** The demo's reviewer: looks at each session's PR and reviews green heads as the scenario says. */
const review = (emulator: Emulator, branches: ReadonlyMap<string, { readonly story: Story; readonly file: string }>) =>
  Effect.sync(() => {
    for (const [branch, { story, file }] of branches) {
      const pull = emulator.pullForBranch(DEMO_REPO, branch)
      if (pull === undefined) continue
      const move = reviewerMove(story, file, emulator.snapshot(DEMO_REPO, pull.number))
      if (move._tag === "RequestChanges") emulator.review(DEMO_REPO, pull.number, "CHANGES_REQUESTED", move.body, move.comments)
      if (move._tag === "Approve") {
        emulator.resolveThreads(DEMO_REPO, pull.number)
        emulator.review(DEMO_REPO, pull.number, "APPROVED", move.body)
      }
    }
  })

const play = (sandbox: DemoSandbox, emulator: Emulator, env: NodeJS.ProcessEnv, options: DemoOptions) =>
  Effect.gen(function*() {
    const started = yield* orch(env, ["start", DEMO_PROJECT, "--detach", "--no-open"])
    const dashboard = /^dashboard: (.*)$/m.exec(started)?.[1]
    yield* Console.log(`${BOLD}dashboard${RESET} ${dashboard ?? "(not started)"}\n`)
    if (!options.headless && dashboard !== undefined) yield* Effect.ignore(openOnThisMachine(dashboard))
    const issues = DEMO_ISSUES.map((issue) => ({ ...issue, number: emulator.addIssue(DEMO_REPO, { title: issue.title, body: issue.body }) }))
    yield* Console.log(`${issues.length} open issues in ${DEMO_REPO}: ${issues.map((i) => `#${i.number} ${i.title}`).join(", ")}`)
    yield* Console.log(`$ orch batch-spawn ${DEMO_PROJECT} ${issues.map((i) => i.number).join(" ")}`)
    yield* orch(env, ["batch-spawn", DEMO_PROJECT, ...issues.map((i) => String(i.number))])

    const spawned = readEvents(sandbox.dataDir).filter((e) => e.type === "session.spawned" && e.data?.role === undefined)
    const sessionOf = (number: number) => spawned.find((e) => (e as { issueId?: string }).issueId === String(number))
    const branches = new Map(issues.flatMap((issue) => {
      const event = sessionOf(issue.number)
      return event === undefined ? [] : [[String(event.data?.branch), { story: issue.story, file: issue.file }] as const]
    }))
    const sessions = Object.fromEntries(issues.map((issue) => [issue.story, sessionOf(issue.number)?.sessionId ?? "?"])) as Record<Story, string>
    const steps = demoSteps(sessions, () => inboxCount(sandbox.dataDir))

    let shown = 0
    const deadline = Date.now() + options.timeoutSeconds * 1000
    while (Date.now() < deadline) {
      const events = readEvents(sandbox.dataDir)
      for (const event of events.slice(shown)) {
        const line = describeEvent(event)
        if (line !== undefined) yield* Console.log(line)
      }
      shown = events.length
      if (steps.every((step) => step.done(events))) break
      yield* review(emulator, branches)
      yield* Effect.sleep("250 millis")
    }

    const events = readEvents(sandbox.dataDir)
    const missing = steps.filter((step) => !step.done(events))
    yield* Console.log(`\n${BOLD}summary${RESET}`)
    for (const step of steps) yield* Console.log(`  ${step.done(events) ? `${GREEN}✓${RESET}` : `${RED}✗${RESET}`} ${step.label}`)
    yield* Console.log(
      `  repohost: ${emulator.stats.graphqlQueries} GraphQL queries, ${emulator.stats.counted} REST requests (+${emulator.stats.notModified} free 304s), ${emulator.deliveries.length} webhook deliveries`
    )
    return { dashboard, missing: missing.map((step) => step.label) }
  })

export const runDemo = (options: DemoOptions) =>
  Effect.gen(function*() {
    if (options.port !== undefined) {
      const taken = yield* canListen("127.0.0.1", options.port, "port")
      if (taken !== undefined) {
        return yield* new DemoFailed({
          reason: `cannot use --port ${options.port}: ${taken.replace(/; set .*$/, "")}; choose another, or leave --port out for a free one`
        })
      }
    }
    const sandbox = makeSandbox()
    yield* Effect.addFinalizer(() => Effect.sync(() => (options.keep ? undefined : rmSync(sandbox.root, { recursive: true, force: true }))))
    yield* Console.log(`${BOLD}orch demo${RESET} — sandbox ${sandbox.root}`)
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startEmulator({
          repos: [{ repo: DEMO_REPO, gitDir: sandbox.origin }],
          ci: ({ sha }) => ciVerdict(todosAt(sandbox.origin, sha)),
          ciDelayMs: options.headless ? 200 : 1500
        })
      ),
      (e) => Effect.promise(e.close)
    )
    const port = options.port ?? (yield* freePort)
    const [terminalPort, directTerminalPort] = [yield* freePort, yield* freePort]
    const secret = randomBytes(16).toString("hex")
    emulator.addWebhook({ url: `http://127.0.0.1:${port}/webhooks/repohost`, secret })
    const agent = join(dirname(cli()), "demo-agent.mjs")
    writeDemoConfig(sandbox, {
      port,
      terminalPort,
      directTerminalPort,
      apiUrl: emulator.url,
      agentCommand: `"${process.execPath}" "${agent}" --api ${emulator.url} --repo ${DEMO_REPO}`
    })
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ORCH_HOME: sandbox.dataDir,
      ORCH_CONFIG_PATH: sandbox.configPath,
      ORCH_TMUX_SOCKET: sandbox.socket,
      ORCH_DEMO_PACE_MS: options.headless ? "100" : "800",
      [WEBHOOK_SECRET_VAR]: secret
    }
    yield* Effect.addFinalizer(() => orch(env, ["stop", "--kill-sessions"]).pipe(Effect.ignore))
    const { dashboard, missing } = yield* play(sandbox, emulator, env, options)
    if (!options.headless && dashboard !== undefined) {
      yield* Console.log(`\nThe supervisor and the dashboard stay up: ${dashboard}`)
      yield* Console.log(`Look around (ORCH_HOME=${sandbox.dataDir} ORCH_CONFIG_PATH=${sandbox.configPath} orch status). Ctrl-C ends the demo.`)
      yield* Effect.callback<void>((resume) => {
        process.once("SIGINT", () => resume(Effect.void))
      })
    }
    if (missing.length > 0) return yield* new DemoFailed({ reason: `the demo did not finish: ${missing.join("; ")}` })
  }).pipe(Effect.scoped)
