import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { stringify } from "yaml"
import { chooseSessionConfig, type SessionConfigFacts } from "../../src/cli/session-config.ts"
import { eventually } from "../support/eventually.ts"
import { makeRepo } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"

describe("which config a command naming a session uses", () => {
  const found = (hasProject: boolean) => ({ path: "/found.yaml", hasProject })
  const recorded = (exists: boolean, path = "/repo/orchestrator.yaml") => ({ path, exists })
  it.each<[string, SessionConfigFacts, string]>([
    ["ORCH_CONFIG_PATH wins over the record", { fromEnv: true, found: undefined, recorded: recorded(true) }, "Found"],
    [
      "a found config with the project: it, as the docs say, though the session was made under another",
      { fromEnv: false, found: found(true), recorded: recorded(true) },
      "Found"
    ],
    ["a found config with the project, the record's gone", { fromEnv: false, found: found(true), recorded: recorded(false) }, "Found"],
    ["a found config without it: the record's", { fromEnv: false, found: found(false), recorded: recorded(true) }, "Recorded /repo/orchestrator.yaml"],
    ["nothing found: the record's", { fromEnv: false, found: undefined, recorded: recorded(true) }, "Recorded /repo/orchestrator.yaml"],
    ["nothing found and the record's is gone", { fromEnv: false, found: undefined, recorded: recorded(false) }, "RecordedGone /repo/orchestrator.yaml"],
    ["found without the project, the record's gone: the found one says so", { fromEnv: false, found: found(false), recorded: recorded(false) }, "Found"],
    ["an old record with none remembered", { fromEnv: false, found: found(false), recorded: undefined }, "Found"],
    ["an old record and nothing found", { fromEnv: false, found: undefined, recorded: undefined }, "NotFound"],
    ["the record's is the found one", { fromEnv: false, found: found(false), recorded: recorded(true, "/found.yaml") }, "Found"]
  ])("%s", (_, facts, expected) => {
    const choice = chooseSessionConfig(facts)
    assert.strictEqual(choice._tag === "Recorded" || choice._tag === "RecordedGone" ? `${choice._tag} ${choice.path}` : choice._tag, expected)
  })
})

describe("commands that name a session work from any directory (a per-repository config, no ORCH_* variables)", () => {
  it.live("send, session kill, restore and rm find the session's config from its record", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const configFile = s.writeRepoConfig()
      const spawned = yield* s.orch(["spawn", "app", "1"], { cwd: s.repo.path })
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(s.record("app-1").configPath, configFile)

      const screen = () => s.tmux("capture-pane", "-p", "-t", "=app-1:")
      yield* eventually("the agent", () => screen().includes("ready app-1"))
      // Each says which config it acts under, since none is found from where it runs.
      const says = `orch: using ${configFile}, the config app-1 was spawned under, as no config is found from here\n`
      assert.deepStrictEqual(yield* s.orch(["send", "app-1", "hello from elsewhere"]), { code: 0, stdout: "delivered to app-1\n", stderr: says })
      yield* eventually("the message on the agent's screen", () => screen().includes("got: hello from elsewhere"))
      // From the repository, where that config is found: nothing to say.
      assert.deepStrictEqual(yield* s.orch(["send", "app-1", "from home"], { cwd: s.repo.path }), { code: 0, stdout: "delivered to app-1\n", stderr: "" })
      assert.deepStrictEqual(yield* s.orch(["session", "kill", "app-1"]), { code: 0, stdout: "killed app-1\n", stderr: says })
      assert.deepStrictEqual(yield* s.orch(["session", "restore", "app-1"]), { code: 0, stdout: "restored app-1\n", stderr: says })
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      assert.deepStrictEqual(yield* s.orch(["session", "rm", "app-1"]), { code: 0, stdout: "removed app-1 (killed)\n", stderr: says })

      // Commands that name no session still need a config found from where they run.
      const lost = yield* s.orch(["spawn", "app", "2"])
      assert.strictEqual(lost.code, 2)
      assert.match(
        lost.stderr,
        /^orch: No config file found: no orchestrator\.yaml \(or \.yml\) in \S+ or any directory above it, nor .*; create one with `orch init`, or point ORCH_CONFIG_PATH at one\n$/
      )
    }), 60_000)

  it.live("a user-level config without the project, ORCH_CONFIG_PATH, and a remembered file that is gone", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const configFile = s.writeRepoConfig()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"], { cwd: s.repo.path })).code, 0)

      // ~/.config/orchestrator/config.yaml is found from anywhere, but knows only another project.
      const other = makeRepo(s.root, "other")
      mkdirSync(dirname(s.userConfigFile), { recursive: true })
      writeFileSync(s.userConfigFile, stringify({ ...s.ports, projects: { other: s.project({ path: other.path }) } }))
      const screen = () => s.tmux("capture-pane", "-p", "-t", "=app-1:")
      yield* eventually("the agent", () => screen().includes("ready app-1"))
      assert.strictEqual((yield* s.orch(["send", "app-1", "via the record"])).code, 0)
      yield* eventually("the message", () => screen().includes("got: via the record"))

      // ORCH_CONFIG_PATH still wins.
      const forced = yield* s.orch(["send", "app-1", "x"], { env: { ORCH_CONFIG_PATH: join(s.root, "nope.yaml") } })
      assert.strictEqual(forced.code, 2)
      assert.strictEqual(
        forced.stderr,
        `orch: No config file found: nothing at ${join(s.root, "nope.yaml")}; create one with \`orch init\`, or point ORCH_CONFIG_PATH at one\n`
      )

      // The remembered file moved away: with the user-level config found, its project is unknown there.
      renameSync(configFile, join(s.root, "moved.yaml"))
      const unknown = yield* s.orch(["send", "app-1", "x"])
      assert.deepStrictEqual(unknown, { code: 2, stdout: "", stderr: `orch: no project "app" in the config ${s.userConfigFile} (projects: other)\n` })
      // And with nothing found at all, one sentence says where it was spawned.
      renameSync(s.userConfigFile, join(s.root, "user.yaml"))
      const gone = yield* s.orch(["send", "app-1", "x"])
      assert.deepStrictEqual(gone, {
        code: 2,
        stdout: "",
        stderr:
          `orch: session app-1 was spawned under ${configFile}, which no longer exists; run the command where its project's config is found, or point ORCH_CONFIG_PATH at it\n`
      })
    }), 60_000)
})
