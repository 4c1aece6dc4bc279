/**
 * An agent's secrets never sit on a command line (readable by every user through `ps`): the built CLI, a fresh
 * HOME, an empty TMUX_TMPDIR, no ORCH_* variable, the secret reaching the agent through a `${VAR}` reference in
 * the config. `tmux` on PATH is the real one behind a wrapper that records every command line it is given.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

const SECRET = `sk-s3cr3t-'quoted' "double" $HOME \`id\` ${"$"}(id)\nsecond line ünïcødé 🚀`
const MARK = "sk-s3cr3t"

/** Every process's command line (arguments joined by spaces). */
const commandLines = (): Array<string> =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")]
    } catch {
      return []
    }
  })

describe("secrets stay off command lines", () => {
  it.live("spawn and restore: the agent sees its secret, no command line shows it, and the env file is gone", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const realTmux = execFileSync("sh", ["-c", "command -v tmux"], { encoding: "utf8" }).trim()
      const bin = join(s.root, "bin")
      const log = join(s.root, "tmux-args.log")
      mkdirSync(bin)
      writeFileSync(join(bin, "tmux"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realTmux}' "$@"\n`, { mode: 0o755 })
      s.writeRepoConfig({
        agentConfig: {
          command: `printf '%s' "$AGENT_TOKEN" > "$ORCH_DATA_DIR/seen-$$"; echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`,
          env: { AGENT_TOKEN: "${DEMO_SECRET}" }
        }
      })
      const env = { PATH: `${bin}:${process.env.PATH ?? ""}`, DEMO_SECRET: SECRET }
      // Sampled while orch runs, in case a process shows it for a moment without going through tmux.
      const seen = new Set<string>()
      const sampler = setInterval(() => commandLines().filter((line) => line.includes(MARK)).forEach((line) => seen.add(line)), 2)
      yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(sampler)))

      const sessionDir = join(s.dataDir, "sessions", "app", "app-1")
      const agentSaw = () => readdirSync(sessionDir).filter((name) => name.startsWith("seen-")).map((name) => readFileSync(join(sessionDir, name), "utf8"))
      const spawned = yield* s.orch(["spawn", "app", "1"], { cwd: s.repo.path, env })
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      yield* eventually("the agent", () => s.tmux("capture-pane", "-p", "-t", "=app-1:").includes("ready app-1"))
      assert.deepStrictEqual(agentSaw(), [SECRET])

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"], { env })).code, 0)
      const restored = yield* s.orch(["session", "restore", "app-1"], { env })
      assert.strictEqual(restored.code, 0, restored.stderr)
      yield* eventually("the restored agent", () => agentSaw().length === 2)
      assert.deepStrictEqual(agentSaw(), [SECRET, SECRET])

      clearInterval(sampler)
      const tmuxCalls = readFileSync(log, "utf8")
      assert.include(tmuxCalls, "new-session")
      assert.notInclude(tmuxCalls, MARK)
      assert.deepStrictEqual([...seen, ...commandLines().filter((line) => line.includes(MARK))], [])
      // Each launch line names its env file: read, then deleted by the agent's shell before the agent ran.
      const envFiles = [...tmuxCalls.matchAll(/\. '([^']+)'/g)].map((match) => match[1]!)
      assert.lengthOf(envFiles, 2)
      for (const file of envFiles) assert.isFalse(existsSync(file), `${file} is left`)
    }), 60_000)
})
