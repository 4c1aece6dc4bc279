/**
 * Running the real Claude Code CLI (the pinned devDependency) offline under orch: the agent's `~/.claude.json`
 * (onboarding done, the API key approved, the project trusted) and the `agentConfig` that points it at a
 * scripted model server.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const CLAUDE_BIN = resolve("node_modules/.bin/claude")
export { VERIFIED_CLAUDE_VERSION as CLAUDE_VERSION } from "../../src/plugins/agent/claude-screen.ts"
export const API_KEY = "sk-ant-orch-test-00000000000000000000000000"

/** What the TUI asks once per machine, answered: trust is looked up at the repository root (worktrees included). */
export const writeClaudeHome = (home: string, trustedRepos: ReadonlyArray<string>) => {
  mkdirSync(home, { recursive: true })
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      bypassPermissionsModeAccepted: true,
      customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      projects: Object.fromEntries(trustedRepos.map((repo) => [repo, { hasTrustDialogAccepted: true }]))
    })
  )
}

/** A project's `agent`/`agentConfig` for the real CLI against the model server at `modelUrl`. */
export const claudeAgent = (modelUrl: string, permissions: "skip" | "default" = "skip") => ({
  agent: "coding-agent",
  agentConfig: {
    command: CLAUDE_BIN,
    permissions,
    env: {
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: API_KEY,
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // --dangerously-skip-permissions refuses to run as root outside a sandbox; tests and CI run as root.
      IS_SANDBOX: "1"
    }
  }
})
