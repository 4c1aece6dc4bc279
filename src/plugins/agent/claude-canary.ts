/**
 * The agent-drift canary for Claude Code: runs the installed CLI offline (a temp HOME, a private tmux server, a
 * local model that drives it) to its three screens orch must read (ready, busy, a permission prompt), and checks
 * that orch's screen reader and hook mapping still recognise each. `orch doctor` reports the result; the recorded
 * screens of the version it was verified with are in test/fixtures/agents/.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { activityOf, parseSignal } from "../../domain/activity.ts"
import type { Activity } from "../../domain/session.ts"
import type { RuntimeHandle } from "../../domain/session.ts"
import { makeMultiplexer } from "../runtime/multiplexer.ts"
import type { RuntimeShape } from "../runtime/Runtime.ts"
import { applyEditsLocally } from "../workspace/file-edits.ts"
import { type AgentContext, AgentError } from "./Agent.ts"
import { makeAnswerWriter } from "./anthropic-sse.ts"
import { claudeActivityFromScreen, claudeStartBlocker } from "./claude-screen.ts"
import { makeCodingAgent } from "./coding-agent.ts"

export interface CanaryCheck {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
}

const API_KEY = "sk-ant-orch-canary-0000000000000000000000"
const PROMPT = "orch doctor canary: write canary.txt"

/** A model that holds its first answer until released (the busy screen), then asks to run a command (the prompt). */
const canaryModel = () => {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const { streamAnswer } = makeAnswerWriter()
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      let body: { tools?: Array<unknown>; messages?: Array<{ role: string }> } = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        // not a Messages call
      }
      const conversation = (body.tools ?? []).length > 0
      const answered = (body.messages ?? []).some((m) => m.role === "assistant")
      if (!conversation || answered) return streamAnswer(res, "canary", { text: "Done." })
      void released.then(() =>
        streamAnswer(res, "canary", { tools: [{ tool: "Bash", input: { command: "echo orch-canary > canary.txt", description: "write canary.txt" } }] })
      )
    })
  })
  return Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly release: () => void }>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release })))
    }),
    () =>
      Effect.sync(() => {
        release()
        server.closeAllConnections()
        server.close()
      })
  )
}

/** A temp repository the CLI trusts and a HOME where its one-time questions are answered. */
const scratch = Effect.acquireRelease(
  Effect.sync(() => {
    const root = mkdtempSync(join(tmpdir(), "orch-canary-"))
    const repo = join(root, "repo")
    const home = join(root, "home")
    mkdirSync(repo)
    mkdirSync(home)
    execFileSync("git", ["init", "-q", repo])
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        projects: { [repo]: { hasTrustDialogAccepted: true } }
      })
    )
    writeFileSync(join(root, "system.md"), "You are checked by orch doctor.")
    return { root, repo, home, socket: join(root, "tmux.sock") }
  }),
  ({ root, socket }) =>
    Effect.sync(() => {
      try {
        execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
      } catch {
        // no server left
      }
      // The killed agent may still be writing its files for a moment.
      try {
        rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
      } catch {
        // a temp dir left behind is harmless
      }
    })
)

const lastLines = (screen: string) => screen.split("\n").map((l) => l.trimEnd()).filter((l) => l.trim() !== "").slice(-4).join(" | ")

/** Polls the screen until the reader says `want`; a start-up question or the agent exiting ends it early. */
const screenShows = (runtime: RuntimeShape, handle: RuntimeHandle, want: Activity, timeoutMs: number) =>
  Effect.gen(function*() {
    let screen = ""
    for (let waited = 0; waited < timeoutMs; waited += 200) {
      // A capture or probe that fails is asked again 200 ms later; the check's timeout says when it gives up.
      screen = yield* runtime.capture(handle).pipe(Effect.orElseSucceed(() => screen))
      if (claudeActivityFromScreen(screen) === want) return { ok: true, detail: `recognised as ${want}` }
      const blocker = claudeStartBlocker(screen)
      if (blocker !== undefined) return { ok: false, detail: blocker }
      const alive = (yield* runtime.probe([handle]).pipe(Effect.orElseSucceed(() => new Map()))).get(handle.id)
      if (alive !== undefined && alive._tag !== "Alive") return { ok: false, detail: `the agent exited: ${lastLines(screen)}` }
      yield* Effect.sleep("200 millis")
    }
    return { ok: false, detail: `not recognised as ${want} within ${timeoutMs / 1000} s; the screen ends: ${lastLines(screen)}` }
  })

/** Runs the installed `binary` through the canary; one check per screen and one for the hooks. */
export const claudeCanary = (binary: string) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* scratch
    const model = yield* canaryModel()
    const runtime = yield* makeMultiplexer(dir.socket)
    const agent = makeCodingAgent({ command: binary, permissions: "default" })
    const activityFile = join(dir.root, "activity.jsonl")
    const context = {
      sessionId: "canary",
      issueId: "canary",
      branch: "main",
      workspacePath: dir.repo,
      promptFile: join(dir.root, "system.md"),
      systemPromptFile: join(dir.root, "system.md"),
      task: PROMPT,
      activityFile,
      conversationId: crypto.randomUUID()
    } as AgentContext
    const launch = yield* agent.launch(context)
    yield* applyEditsLocally(launch.files ?? []).pipe(Effect.mapError((reason) => new AgentError({ plugin: "coding-agent", reason })))
    const handle = yield* Effect.acquireRelease(
      runtime.create({
        sessionId: "canary",
        workingDir: dir.repo,
        command: launch.command,
        env: {
          HOME: dir.home,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: API_KEY,
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
        },
        unsetEnv: ["TMUX", "TMUX_PANE", "ANTHROPIC_AUTH_TOKEN"]
      }),
      (h) => runtime.destroy(h).pipe(Effect.catch((error) => Effect.logWarning(`the check's terminal session ${h.id} could not be ended: ${error.message}`)))
    )
    const checks: Array<CanaryCheck> = []
    const ready = yield* screenShows(runtime, handle, "ready", 45_000)
    checks.push({ name: "ready screen", ...ready })
    if (!ready.ok) return checks
    const sent = yield* runtime.send(handle, PROMPT).pipe(Effect.as(undefined), Effect.catch((error) => Effect.succeed(error.message)))
    checks.push({ name: "message delivery", ok: sent === undefined, detail: sent ?? "typed and submitted" })
    checks.push({ name: "busy screen", ...(yield* screenShows(runtime, handle, "active", 15_000)) })
    model.release()
    checks.push({ name: "permission prompt", ...(yield* screenShows(runtime, handle, "waiting_input", 15_000)) })
    const signals = (() => {
      try {
        return readFileSync(activityFile, "utf8").trim().split("\n").flatMap((line) => parseSignal(line) ?? [])
      } catch {
        return []
      }
    })()
    const seen = signals.map((s) => s.event ?? "?")
    const expected = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest"]
    const missing = expected.filter((event) => !seen.includes(event))
    const last = signals.at(-1)
    checks.push({
      name: "hooks",
      ok: missing.length === 0 && last !== undefined && activityOf(last) === "waiting_input",
      detail: missing.length > 0 ? `${missing.join(", ")} did not fire (fired: ${seen.join(", ") || "none"})` : `fired: ${[...new Set(seen)].join(", ")}`
    })
    return checks
  }))
