/**
 * Admission under a real memory limit, on the default path (the built CLI, a fresh HOME, an empty TMUX_TMPDIR, no
 * ORCH_* variable): orch runs in a memory control group with room over the 1 GB reserve for 2.5 sessions of the 1 GB
 * default size. The agents are small and have not been measured, so the group's own figure hardly moves as they
 * start: only the sessions' reservations keep admission from starting all four.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { memoryGroup, memoryGroupUnavailable } from "../support/memory-group.ts"
import { userSandbox } from "../support/user-sandbox.ts"

const GB = 1024 ** 3
const live = memoryGroupUnavailable === undefined ? it.live : it.live.skip

describe("admission in a memory control group", () => {
  live("room for 2.5 sessions: 4 queued, 2 start, and the others say what is free and what is held", () =>
    Effect.gen(function*() {
      // Made before the sandbox, so it is removed after the sandbox's processes are gone.
      const group = yield* memoryGroup
      const s = yield* userSandbox
      s.writeRepoConfig()
      const started = yield* group.orch(["start", "app", "--detach", "--no-open"], { cwd: s.repo.path, env: s.env })
      assert.strictEqual(started.code, 0, started.stderr)
      yield* Effect.addFinalizer(() => Effect.asVoid(s.orch(["stop", "--kill-sessions"], { cwd: s.repo.path })))
      group.setLimit(group.usage() + 3.5 * GB)

      const queued = yield* s.orch(["queue", "add", "app", "1", "2", "3", "4"], { cwd: s.repo.path })
      assert.strictEqual(queued.code, 0, queued.stderr)
      const admitted = () => s.events().filter((e) => e.type === "queue.admitted").map((e) => e.issueId as string)
      const file = join(s.dataDir, "admission.json")
      const round = () => existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) as { at: string; waiting: Record<string, string> } : { at: "", waiting: {} }
      const held =
        /^waiting for memory on this machine: 3\.\d GB free, 1\.0 GB of it kept in reserve, 2 sessions just started counted at 1\.0 GB each until they are measured, 1\.0 GB needed$/
      const first = yield* eventually("a round that admitted two and holds the others back", () => {
        const last = round()
        return admitted().length === 2 && Object.values(last.waiting).length === 2 && Object.values(last.waiting).every((r) => held.test(r)) && last
      }, 30_000)

      // The rounds after it (every 3 s) start nothing more: what the first ones started still counts.
      yield* eventually("two more admission rounds", () => Date.parse(round().at) >= Date.parse(first.at) + 5_000, 15_000)
      assert.deepStrictEqual(admitted().toSorted(), ["1", "2"])
      assert.isTrue(Object.values(round().waiting).every((r) => held.test(r)), JSON.stringify(round()))
      const ls = (yield* s.orch(["queue", "ls"], { cwd: s.repo.path })).stdout
      assert.match(ls, /^1\. q-3 app 3: waiting for memory on this machine: 3\.\d GB free, 1\.0 GB of it kept in reserve, 2 sessions just started counted at/m)
    }), 90_000)

  live("agents that take their memory at once: each holds only what it has not taken yet, read off its process tree", () =>
    Effect.gen(function*() {
      const group = yield* memoryGroup
      const s = yield* userSandbox
      // Each agent takes 600 MB at once and keeps it; the expected size of one is the default 1 GB.
      s.writeRepoConfig({ agentConfig: { command: `node -e 'const b = Buffer.alloc(600 * 2 ** 20, 1); setInterval(() => b[0]++, 1000)'` } })
      const started = yield* group.orch(["start", "app", "--detach", "--no-open"], { cwd: s.repo.path, env: s.env })
      assert.strictEqual(started.code, 0, started.stderr)
      yield* Effect.addFinalizer(() => Effect.asVoid(s.orch(["stop", "--kill-sessions"], { cwd: s.repo.path })))
      group.setLimit(group.usage() + 3.5 * GB)
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "1", "2", "3", "4"], { cwd: s.repo.path })).code, 0)
      const file = join(s.dataDir, "admission.json")
      // Once the agents have taken their 600 MB, a round holds about 400 MB for each of them, not its whole 1 GB.
      const reason = yield* eventually("a round holding only what the agents have not taken", () => {
        const waiting = existsSync(file) ? Object.values((JSON.parse(readFileSync(file, "utf8")) as { waiting: Record<string, string> }).waiting) : []
        const held = waiting.map((r) => /(\d) sessions? just started counted at (\d+) MB(?: to (\d+) MB)?(?: each)? until/.exec(r))
        return held.length > 0 && held.every((m) => m !== null && m[2] !== undefined && Number(m[3] ?? m[2]) < 600) && waiting[0]
      }, 40_000)
      assert.match(reason as string, /^waiting for memory on this machine: /)
    }), 90_000)
})
