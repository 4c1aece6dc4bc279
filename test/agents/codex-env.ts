/**
 * Running the real Codex CLI (the pinned devDependency) offline under orch: the agent's `~/.codex/config.toml`
 * (a model provider at the scripted Responses server, the project trusted) and the `agentConfig` for it.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const CODEX_BIN = resolve("node_modules/.bin/codex")
export { VERIFIED_CODEX_VERSION as CODEX_VERSION } from "../../src/plugins/agent/codex.ts"
export const API_KEY = "sk-orch-test-codex"

/** `OPENAI_BASE_URL` alone leaves Codex at its sign-in menu; a configured provider gets past it. */
export const writeCodexHome = (home: string, modelUrl: string, trustedDirs: ReadonlyArray<string>) => {
  mkdirSync(join(home, ".codex"), { recursive: true })
  writeFileSync(
    join(home, ".codex", "config.toml"),
    [
      `model = "gpt-test"`,
      `model_provider = "local"`,
      ``,
      `[model_providers.local]`,
      `name = "local"`,
      `base_url = ${JSON.stringify(modelUrl)}`,
      `env_key = "OPENAI_API_KEY"`,
      `wire_api = "responses"`,
      ...trustedDirs.flatMap((dir) => [``, `[projects.${JSON.stringify(dir)}]`, `trust_level = "trusted"`]),
      ``
    ].join("\n")
  )
}

/** A project's `agent`/`agentConfig` for the real CLI. */
export const codexAgent = (permissions: "skip" | "auto-edit" | "default" = "skip") => ({
  agent: "codex",
  agentConfig: { command: CODEX_BIN, permissions, env: { OPENAI_API_KEY: API_KEY } }
})
