/**
 * The merge train on the default path (the built CLI, a fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable, the
 * config in the repository's orchestrator.yaml, the emulator as the repohost): `orch train ls` before there is a
 * train, with a car waiting for its checks on its updated head (also in `orch status` and `--json`), with that car
 * and no supervisor (it says the train stands until `orch start`), and once merged; a project named as `orch spawn`
 * names it (unknown: exit 2; its train off: said so).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { NO_SUPERVISOR_LINE } from "../../src/cli/train-view.ts"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { git, gitAsync } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"

describe("orch train ls on the default path", () => {
  it.live("a project named as `orch spawn` names it: an unknown one is exit 2 with the projects; one with the train off says so", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const config = s.writeRepoConfig()
      const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })
      const spawn = yield* orch("spawn", "nosuch", "1")
      for (const args of [["train", "ls", "nosuch"], ["train", "ls", "nosuch", "--json"]]) {
        const run = yield* orch(...args)
        assert.deepStrictEqual({ code: run.code, stdout: run.stdout, stderr: run.stderr }, { code: 2, stdout: "", stderr: spawn.stderr }, args.join(" "))
      }
      assert.strictEqual(spawn.stderr, `orch: no project "nosuch" in the config ${config} (projects: app)\n`)
      const off = yield* orch("train", "ls", "app")
      assert.deepStrictEqual(off, {
        code: 0,
        stdout: `The merge train is off for app: set \`mergeTrain: true\` in its config (${config}) to have its approved and green PRs merged one at a time.\n`,
        stderr: ""
      })
      assert.deepStrictEqual(JSON.parse((yield* orch("train", "ls", "app", "--json")).stdout), [])
    }), 60_000)

  it.live("empty, then the head car waiting for checks on its updated head, then merged", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      // CI on the train's update of the branch waits until the test lets it finish.
      let release: (verdict: "success") => void = () => {}
      const gate = new Promise<"success">((resolve) => (release = resolve))
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({
            repos: [{ repo: "acme/app", gitDir: s.repo.origin }],
            ci: ({ message }) => (message.startsWith("Merge branch 'main'") ? gate : "success")
          })
        ),
        (e) => Effect.promise(() => e.close())
      )
      const config = s.writeRepoConfig({
        scm: { plugin: "repohost", apiUrl: emulator.url },
        mergeTrain: true,
        reactions: { "approved-and-green": { action: "auto-merge", auto: true } }
      })
      writeFileSync(config, `pollIntervalMs: 1000\n${readFileSync(config, "utf8")}`)
      const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })

      const empty = yield* orch("train", "ls")
      assert.deepStrictEqual({ code: empty.code, stderr: empty.stderr }, { code: 0, stderr: "" })
      assert.strictEqual(
        empty.stdout,
        "No merge train has a PR in it. A project with `mergeTrain: true` in orchestrator.yaml lines up its approved and green PRs here and merges them one at a time.\n"
      )

      assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
      // A project the config the supervisor serves lacks: said as `orch spawn` says it.
      const unknown = yield* orch("train", "ls", "nosuch")
      const spawnUnknown = yield* orch("spawn", "nosuch", "1")
      assert.deepStrictEqual({ code: unknown.code, stdout: unknown.stdout, stderr: unknown.stderr }, { code: 2, stdout: "", stderr: spawnUnknown.stderr })
      assert.include(unknown.stderr, `no project "nosuch" in the config the running supervisor serves ${config} (projects: app)`)
      const spawned = yield* orch("spawn", "app", "--task", "Add x")
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      const { branch, workspacePath } = s.record("app-1")
      writeFileSync(join(workspacePath, "x.txt"), "x\n")
      git(workspacePath, "add", ".")
      git(workspacePath, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "add x")
      yield* gitAsync(workspacePath, "push", "-q", "origin", `HEAD:${branch}`)
      // main moves after the branch left it: the train must bring the PR up to date before it merges.
      writeFileSync(join(s.repo.path, "main.txt"), "moved\n")
      git(s.repo.path, "add", ".")
      git(s.repo.path, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "main moves")
      yield* gitAsync(s.repo.path, "push", "-q", "origin", "HEAD:main")
      const pr = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: branch, base: "main", title: "Add x" }) })
          .then((r) => r.json() as Promise<{ number: number }>)
      )
      yield* eventually("the PR green", () => s.events().some((e) => e.type === "ci.passed"), 20_000)
      emulator.review("acme/app", pr.number, "APPROVED")

      yield* eventually("the branch updated by the train", () => s.events().some((e) => e.type === "train.updated"), 30_000)
      const updatedHead = git(s.repo.origin, "rev-parse", `refs/heads/${branch}`).slice(0, 7)
      const mainHead = git(s.repo.origin, "rev-parse", "refs/heads/main").slice(0, 7)
      const waiting = `  1. app-1 PR #${pr.number} (${branch}): waits for checks on ${updatedHead} (up to date with ${mainHead})`
      const trainFile = join(s.dataDir, "trains", "app.json")
      yield* eventually("the car waiting for its checks", () => existsSync(trainFile) && readFileSync(trainFile, "utf8").includes(`"kind": "checking"`), 10_000)
      const listed = (yield* orch("train", "ls")).stdout
      assert.strictEqual(listed, `Merge train app (1):\n${waiting}\n`)
      const status = yield* orch("status")
      assert.include(status.stdout, `Merge train app (1):\n${waiting}\n`)
      const json = JSON.parse((yield* orch("status", "--json")).stdout) as Array<{ sessionId: string; train?: unknown }>
      assert.deepStrictEqual(json.find((row) => row.sessionId === "app-1")?.train, { position: 1, waitingOn: waiting.split(": ").slice(1).join(": ") })
      assert.isFalse(emulator.pull("acme/app", pr.number)?.merged, "not merged before its checks passed on the updated head")

      // With the supervisor stopped the car is where it stood, and the train says it waits for `orch start`.
      assert.strictEqual((yield* orch("stop")).code, 0)
      const standing = `Merge train app (1):\n${waiting}\n${NO_SUPERVISOR_LINE}\n`
      assert.strictEqual((yield* orch("train", "ls")).stdout, standing)
      assert.include((yield* orch("status")).stdout, standing)
      assert.strictEqual((yield* orch("start", "--detach", "--no-open")).code, 0)
      assert.strictEqual((yield* orch("train", "ls", "app")).stdout, `Merge train app (1):\n${waiting}\n`)

      release("success")
      yield* eventually("merged by the train", () => s.events().some((e) => e.type === "train.merged"), 30_000)
      assert.isTrue(emulator.pull("acme/app", pr.number)?.merged)
      const after = yield* orch("train", "ls", "app", "--json")
      assert.deepStrictEqual(JSON.parse(after.stdout), [{ projectId: "app", cars: [] }])
      assert.strictEqual(
        (yield* orch("train", "ls", "app")).stdout,
        "The merge train of app has no PR in it. A project with `mergeTrain: true` in orchestrator.yaml lines up its approved and green PRs here and merges them one at a time.\n"
      )
      assert.strictEqual((yield* orch("stop")).code, 0)
    }), 120_000)
})
