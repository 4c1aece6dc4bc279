/**
 * `orch spawn` and `orch session cleanup` with issues from Linear (tracker `tracker-b`), run as a user would:
 * the built CLI, real git and tmux, and the local Linear (which checks every document against Linear's schema).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { linearServer } from "../support/linear-server.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git, gitOk } from "../support/repo.ts"
import { scriptedHost } from "../support/scripted-host.ts"

const API_KEY = "lin_api_e2e_secret_4242"
const ENV_AGENT = `env | sort > "$ORCH_WORKSPACE/../agent-env-$ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`

const linearProject = (url: string) => ({
  tracker: { plugin: "tracker-b", teamId: "ENG", apiKey: "${LINEAR_API_KEY}", apiUrl: url }
})
const LINEAR = {
  apiKey: API_KEY,
  teams: [{ id: "9cfb482a-81e3-4154-b5b9-2c805e70a02d", key: "ENG" }, { id: "0d8c4fd6-5c1e-4f0b-9d2a-6a7f1b2c3d4e", key: "OPS" }],
  issues: [
    {
      identifier: "ENG-123",
      title: "Fix the login bug",
      description: "Users cannot log in with SSO.",
      branchName: "alice/eng-123-fix-the-login-bug",
      state: { name: "In Progress", type: "started" }
    },
    { identifier: "ENG-124", title: "Second" },
    { identifier: "OPS-5", title: "Another team's" }
  ]
}

describe("orch spawn with tracker-b (Linear)", () => {
  it.live("spawns ENG-123 on Linear's branch name with the issue in the prompt; the API key stays out of the agent and the logs", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const s = yield* sandbox({ agentCommand: ENV_AGENT, project: linearProject(linear.url) })
      const run = yield* s.orch(["spawn", "app", "ENG-123"], { LINEAR_API_KEY: API_KEY })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "app-1\n")
      assert.strictEqual(run.stderr, "")

      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      assert.strictEqual(git(worktree, "rev-parse", "--abbrev-ref", "HEAD"), "alice/eng-123-fix-the-login-bug")
      assert.deepInclude(s.record("app-1"), {
        issueId: "ENG-123",
        branch: "alice/eng-123-fix-the-login-bug",
        issue: { title: "Fix the login bug", url: "https://linear.app/acme/issue/ENG-123" }
      })
      const prompt = readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8")
      for (
        const part of [
          "Work on issue ENG-123: Fix the login bug",
          "https://linear.app/acme/issue/ENG-123",
          "Users cannot log in with SSO.",
          "`alice/eng-123-fix-the-login-bug`"
        ]
      ) {
        assert.include(prompt, part)
      }
      assert.deepStrictEqual(linear.requests.map((r) => [r.status, r.headers.authorization]), [[200, API_KEY]])

      const envFile = join(s.dataDir, "worktrees", "app", "agent-env-app-1")
      const agentEnv = yield* eventually("the agent's environment", () => existsSync(envFile) && readFileSync(envFile, "utf8"))
      assert.include(agentEnv, "ORCH_ISSUE_ID=ENG-123")
      assert.notInclude(agentEnv, API_KEY, "the tracker's API key must not reach the agent")
      assert.notInclude(readFileSync(join(s.dataDir, "events.jsonl"), "utf8"), API_KEY)
      const shown = yield* s.orch(["config", "show"], { LINEAR_API_KEY: API_KEY })
      assert.strictEqual(shown.code, 0, shown.stderr)
      assert.include(shown.stdout, "apiKey: <redacted>")
      assert.notInclude(shown.stdout + shown.stderr, API_KEY)
    }))

  it.live("an issue of another team, a missing issue and a refused key stop the spawn with one clear line", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const s = yield* sandbox({ project: linearProject(linear.url) })
      const other = yield* s.orch(["spawn", "app", "OPS-5"], { LINEAR_API_KEY: API_KEY })
      assert.deepStrictEqual([other.code, other.stderr], [
        2,
        "orch: \"OPS-5\" is not an issue id here: expected an issue of Linear team ENG, but OPS-5 belongs to team OPS\n"
      ])
      const missing = yield* s.orch(["spawn", "app", "ENG-999"], { LINEAR_API_KEY: API_KEY })
      assert.deepStrictEqual([missing.code, missing.stderr], [1, "orch: issue ENG-999 not found in Linear (team ENG)\n"])
      const refused = yield* s.orch(["spawn", "app", "ENG-123"], { LINEAR_API_KEY: "lin_api_revoked" })
      assert.deepStrictEqual([refused.code, refused.stderr], [
        2,
        "orch: Linear refused the API key in projects.app.tracker.apiKey: You need to authenticate to access this operation.\n"
      ])
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/alice/eng-123"))
      const unset = yield* s.orch(["spawn", "app", "ENG-123"])
      assert.strictEqual(unset.code, 2)
      assert.include(unset.stderr, "LINEAR_API_KEY")
    }))

  it.live("an answer without the issue's title: the spawn goes on with the issue id alone, and says why in one line naming the field", () =>
    Effect.gen(function*() {
      const issue = {
        identifier: "ENG-7",
        description: null,
        url: "u",
        branchName: "b",
        state: { name: "Todo", type: "unstarted" },
        team: { id: "t", key: "ENG" },
        labels: { nodes: [] }
      }
      const linear = yield* scriptedHost(() => ({ body: { data: { issue } } }))
      const s = yield* sandbox({ project: linearProject(linear.url) })
      const run = yield* s.orch(["spawn", "app", "ENG-7"], { LINEAR_API_KEY: API_KEY })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(
        run.stderr,
        `orch: warning: tracker-b ${linear.url} unavailable: Linear answered issue ENG-7 without \`issue.title\`; spawning with the issue id alone\n`
      )
      assert.strictEqual(s.record("app-1").issueId, "ENG-7")
    }))

  it.live("cleanup ends the sessions whose Linear issue is completed", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const s = yield* sandbox({ project: linearProject(linear.url) })
      for (const issue of ["ENG-123", "ENG-124"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue], { LINEAR_API_KEY: API_KEY })).code, 0)
      assert.strictEqual((yield* s.orch(["session", "cleanup"], { LINEAR_API_KEY: API_KEY })).stdout, "Nothing to clean up.\n")

      linear.setState("ENG-124", { name: "Done", type: "completed" })
      const run = yield* s.orch(["session", "cleanup"], { LINEAR_API_KEY: API_KEY })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "cleaned app-2 (done): issue ENG-124 is Done\n")
      assert.strictEqual(s.record("app-2").status, "done")
      assert.strictEqual(s.record("app-1").status, "working")
      assert.deepStrictEqual(s.sessions(), ["app-1"])
      assert.isTrue(linear.requests.every((r) => r.status === 200), "every document was valid")
    }))
})
