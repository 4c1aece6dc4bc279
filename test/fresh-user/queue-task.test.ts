/**
 * A task in the queue, on the default path (the built CLI, a fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable,
 * the config in the repository's orchestrator.yaml) for a project without a tracker: `orch queue add --task` and
 * `--task-file` keep the whole text with the entry, `queue ls` and `status` show its first line, the supervisor starts
 * it with the text as the agent's prompt; a queue.json written before tasks could be queued reads as it did.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

const TASK = "Fix the login redirect\n\nUsers land on /404 after they log in; send them to /home."

describe("orch queue add --task on the default path", () => {
  it.live("queued whole, listed by its first line, started by the supervisor with the text as the prompt", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig()
      const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })
      // A queue as orch wrote it before tasks could be queued: it reads, and new entries go after it.
      mkdirSync(s.dataDir, { recursive: true })
      const addedAt = new Date().toISOString()
      writeFileSync(
        join(s.dataDir, "queue.json"),
        JSON.stringify({ next: 2, entries: [{ id: "q-1", projectId: "app", issue: "7", priority: 0, addedAt, seq: 1 }] })
      )

      const added = yield* orch("queue", "add", "app", "--task", TASK)
      assert.strictEqual(added.code, 0, added.stderr)
      assert.strictEqual(added.stdout, `task "Fix the login redirect": queued as q-2, position 2\n`)
      const file = join(s.root, "task.md")
      writeFileSync(file, "Write the changelog\nfor 1.2\n")
      const fromFile = yield* orch("queue", "add", "app", "--task-file", file, "--priority", "1")
      assert.strictEqual(fromFile.stdout, `task "Write the changelog": queued as q-3, position 1\n`, fromFile.stderr)
      for (
        const [args, stderr] of [
          [
            ["queue", "add", "app"],
            "orch: say what the session is for: issue ids (orch queue add <project> 42 43) or a task (--task \"…\" or --task-file <path>)\n"
          ],
          [["queue", "add", "app", "8", "--task", "x"], "orch: give one of issue ids, --task or --task-file, not several\n"],
          [["queue", "add", "app", "--task", "  \n "], "orch: the task is empty: say what the agent should do in --task \"…\" or in the file of --task-file\n"]
        ] as const
      ) {
        const run = yield* orch(...args)
        assert.deepStrictEqual({ code: run.code, stderr: run.stderr }, { code: 2, stderr }, args.join(" "))
      }

      const ls = (yield* orch("queue", "ls")).stdout
      assert.strictEqual(
        ls,
        [
          `1. q-3 app task "Write the changelog" (priority 1): waiting for a supervisor: \`orch start\` admits queued work`,
          `2. q-1 app 7: waiting for a supervisor: \`orch start\` admits queued work`,
          `3. q-2 app task "Fix the login redirect": waiting for a supervisor: \`orch start\` admits queued work`,
          ""
        ].join("\n")
      )
      const listed = JSON.parse((yield* orch("queue", "ls", "--json")).stdout) as Array<{ id: string; task?: string }>
      assert.strictEqual(listed.find((e) => e.id === "q-2")?.task, TASK.trim(), "the whole text is kept")
      assert.include((yield* s.orch(["status"])).stdout, `  3. q-2 app task "Fix the login redirect": waiting for a supervisor`)

      assert.strictEqual((yield* orch("queue", "rm", "q-1", "q-3")).code, 0)
      assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
      // On a busy machine admission waits for its load to fall: the wait says what the queue waited on.
      const waitedOn = orch("queue", "ls").pipe(Effect.map((ls) => ls.stdout))
      const admitted = yield* eventually("the task admitted", () => s.events().find((e) => e.type === "queue.admitted" && e.data?.entryId === "q-2"), 60_000)
        .pipe(Effect.catch((error) => Effect.flatMap(waitedOn, (ls) => Effect.fail(new Error(`${error.message}; the queue: ${ls}`)))))
      const sessionId = admitted.sessionId as string
      assert.deepInclude(s.record(sessionId), {
        issueId: "fix-the-login-redirect",
        branch: "feat/fix-the-login-redirect",
        task: { title: "Fix the login redirect" }
      })
      assert.notProperty(s.record(sessionId), "priority", "priority 0 is not written")
      const prompt = readFileSync(join(s.dataDir, "sessions", "app", sessionId, "prompt.md"), "utf8")
      assert.include(prompt, "Users land on /404 after they log in; send them to /home.")
      assert.notInclude(prompt, "there is no issue text here")
      assert.match((yield* s.orch(["status"])).stdout, new RegExp(`^${sessionId}\\s+task fix-the-login-redirect\\s+feat/fix-the-login-redirect\\s`, "m"))

      // Through the running supervisor too: queued and started.
      const through = yield* orch("queue", "add", "app", "--task", "Write the changelog", "--priority", "2")
      assert.strictEqual(through.code, 0, through.stderr)
      assert.match(through.stdout, /^task "Write the changelog": queued as q-4, position 1\n$/)
      const second = yield* eventually(
        "the second task admitted",
        () => s.events().find((e) => e.type === "queue.admitted" && e.data?.entryId === "q-4"),
        60_000
      )
        .pipe(Effect.catch((error) => Effect.flatMap(waitedOn, (ls) => Effect.fail(new Error(`${error.message}; the queue: ${ls}`)))))
      // The session keeps its entry's priority: a merge train orders its PR by it.
      assert.strictEqual(s.record(second.sessionId as string).priority, 2)
      assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
    }), 180_000)
})
