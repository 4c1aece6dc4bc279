/**
 * The real Claude Code CLI turned away by its provider as Anthropic's API does it (a 429 with `retry-after` and the
 * `anthropic-ratelimit-*` headers), under a real supervisor on the default path: the built CLI run from the project's
 * directory, a fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable. While the CLI retries by itself, the session is
 * `rate_limited` with the reset the CLI shows; once a retry gets through, it works on and the limit is forgotten.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"
import { claudeAgent, writeClaudeHome } from "./claude-env.ts"
import { rateLimited, startModelServer } from "./model-server.ts"

const RETRY_AFTER_S = 20

describe("the real Claude Code CLI and a provider's limit", () => {
  it.live(
    "a 429 with retry-after: rate_limited with the reset the CLI shows, notified, never told to continue while it retries; then recovery",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        const model = yield* Effect.acquireRelease(Effect.promise(() => startModelServer()), (m) => Effect.promise(() => m.close()))
        model.script([{ when: "Say hi to the limit", steps: [{ text: "Hi, the limit passed." }] }])
        writeClaudeHome(s.home, [s.repo.path])
        s.writeRepoConfig(claudeAgent(model.url))
        const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })
        assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
        // The orchestrator's own first turn goes through; the worker's first two calls are refused.
        yield* eventually("the orchestrator ready", () => s.record("app-orchestrator").activity === "ready", 60_000)
        model.refuse(rateLimited(RETRY_AFTER_S), { times: 2 })
        const spawned = yield* orch("spawn", "app", "--task", "Say hi to the limit")
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        const worker = s.events().find((e) => e.type === "session.spawned" && e.sessionId !== "app-orchestrator")!.sessionId as string

        // The CLI retries by itself ("API error · retrying in 2Xs · attempt 1/10"): orch reads the wait off its screen.
        const limited = yield* eventually(
          "session.rate_limited",
          () => s.events().find((e) => e.type === "session.rate_limited" && e.sessionId === worker),
          30_000
        )
        assert.match(limited.message, /^API error · retrying in \d+s · attempt [12]\/10$/)
        assert.deepInclude(limited.data, { from: "working", activity: "rate_limited", attempts: 1, retrying: true })
        // The reset is when the CLI's next attempt came: the retry-after (and its jitter) it showed, read at the probe.
        yield* eventually("the second refused call", () => model.refused.length >= 2, 40_000)
        const resetAt = Date.parse(limited.data.resetAt)
        const retried = model.refused.find((at) => at > Date.parse(limited.timestamp))!
        assert.isBelow(Math.abs(resetAt - retried), 2500, `reset ${limited.data.resetAt}, retried at ${new Date(retried).toISOString()}`)
        const status = (yield* orch("status")).stdout
        assert.match(status, new RegExp(`^${worker} is rate-limited: API error · retrying in \\d+s · attempt \\d/10; it retries by itself`, "m"))
        yield* eventually(
          "the agent-rate-limited notification",
          () => readFileSync(join(s.dataDir, "notifications.jsonl"), "utf8").includes(`${worker}: agent rate-limited`),
          10_000
        )

        // The third call is answered: the turn ends normally, the limit is forgotten, orch never typed into it.
        yield* eventually("the answer after the limit", () => s.record(worker).activity === "ready" && s.record(worker).rateLimit === undefined, 60_000)
        assert.strictEqual(s.record(worker).status, "ready")
        assert.strictEqual(model.mainRequests().filter((r) => r.userTexts.some((t) => t.includes("Say hi to the limit"))).length, 1)
        assert.isFalse(s.events().some((e) => e.type === "reaction.triggered" && e.reaction === "agent-rate-limited" && e.action === "send-to-agent"))
        assert.lengthOf(s.events().filter((e) => e.type === "session.rate_limited"), 1)
        assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
      }),
    180_000
  )
})
