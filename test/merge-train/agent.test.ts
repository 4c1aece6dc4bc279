/**
 * The merge-train bench's scripted agent (agent.ts), as the `command` agent plugin runs it: a real process in a
 * worktree of a real repository, the repohost emulator serving its origin. It opens its pull request; a predicted
 * conflict it only notes; told of a conflict that happened, it makes its change again on the default branch and
 * force-pushes; told of a failure that is not its own, it pushes nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"
import { git, gitAsync } from "../support/repo.ts"
import { conflictsAsText, directoryTree, gitTree, INITIAL_TREE, REPO, TASKS, typeErrors } from "./scenario.ts"

const AGENT = new URL("./agent.ts", import.meta.url).pathname

describe("the merge-train bench's agent", () => {
  it.live(
    "opens its PR, only notes a prediction, redoes its change on main after a conflict, and pushes nothing for a failure not its own",
    () =>
      Effect.gen(function*() {
        const root = yield* tempDir("orch-train-agent-")
        const origin = join(root, "origin.git")
        const repo = join(root, "app")
        git(root, "init", "-q", "--bare", "-b", "main", origin)
        mkdirSync(repo)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "dev@example.com")
        git(repo, "config", "user.name", "Dev")
        for (const [path, text] of Object.entries(INITIAL_TREE)) directoryTree(repo).write(path, text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "initial")
        git(repo, "remote", "add", "origin", origin)
        git(repo, "push", "-q", "origin", "main")
        const emulator = yield* Effect.acquireRelease(
          Effect.promise(() => startEmulator({ repos: [{ repo: REPO, gitDir: origin }] })),
          (e) => Effect.promise(e.close)
        )
        const workspace = join(root, "worktree")
        git(repo, "worktree", "add", "-q", "-b", "feat/1", workspace, "main")

        const agent = yield* Effect.acquireRelease(
          Effect.sync(() =>
            spawn(process.execPath, [AGENT, "--api", emulator.url], {
              cwd: workspace,
              env: { ...process.env, ORCH_ISSUE_ID: "1", ORCH_BRANCH: "feat/1", ORCH_WORKSPACE: workspace },
              stdio: ["pipe", "pipe", "pipe"]
            })
          ),
          (child) => Effect.sync(() => child.kill())
        )
        let said = ""
        agent.stdout.on("data", (chunk) => (said += chunk))
        const type = (text: string) => agent.stdin.write(`${text}\n`)
        const head = () => git(origin, "rev-parse", "feat/1")

        const pull = yield* eventually("the agent's pull request", () => emulator.pullForBranch(REPO, "feat/1"))
        expect(pull.title).toBe(TASKS[0]!.title)
        const first = head()

        // Task 2's change lands on main: the PR now conflicts with it.
        git(repo, "checkout", "-q", "main")
        TASKS[1]!.apply(directoryTree(repo))
        git(repo, "commit", "-qam", "task 2")
        yield* gitAsync(repo, "push", "-q", "origin", "main")
        expect(conflictsAsText(origin, "main", first)).toBe(true)

        // A prediction is no reason to act; typed right before a conflict's message (they arrive as one), the message is.
        const prediction = () => {
          type("orch predicts that your branch will not merge cleanly with another branch once either merges. When the other one has merged, rebase.")
          type("Collides with: app-2 (branch feat/2, PR #3)")
          type("Files that would conflict:")
          type("- src/routes.ts")
        }
        prediction()
        yield* eventually("the prediction noted", () => said.includes("noted: orch predicts"))
        expect(head()).toBe(first)
        prediction()
        type("Your branch has merge conflicts. Rebase on the default branch, resolve the conflicts, and push.")
        yield* eventually("the change made again and pushed", () => said.includes("made my change again on main and pushed"))
        const second = head()
        expect(git(origin, "rev-parse", `${second}^`)).toBe(git(origin, "rev-parse", "main"))
        expect(conflictsAsText(origin, "main", second)).toBe(false)
        const routes = git(origin, "show", `${second}:src/routes.ts`)
        expect(routes).toContain("/orders")
        expect(routes).toContain("/account")

        // CI failing for a reason its change on today's main does not alter: nothing to push.
        type("CI is failing on your pull request. Inspect the failing checks, fix the issues, and push.")
        yield* eventually("the failure called not its own", () => said.includes("the failure is not mine"))
        expect(head()).toBe(second)
        expect(typeErrors(gitTree(origin, second))).toEqual([])
      }).pipe(Effect.scoped),
    60_000
  )
})
