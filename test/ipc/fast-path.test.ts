import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { printBatch, runFast } from "../../src/ipc/fast-path.ts"
import { BatchOutcome } from "../../src/ipc/protocol.ts"
import { pingSupervisor } from "../../src/ipc/raw-ping.ts"
import { eventually, processGone } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { procState } from "../support/zombie.ts"

/** Runs the fast path in this process, capturing what it prints. */
const fast = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  Effect.promise(async () => {
    const out: Array<string> = []
    const err: Array<string> = []
    const [stdout, stderr] = [process.stdout.write, process.stderr.write]
    process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write
    process.stderr.write = ((chunk: string) => err.push(chunk) > 0) as typeof process.stderr.write
    try {
      const code = await runFast(argv, env)
      return { code, stdout: out.join(""), stderr: err.join("") }
    } finally {
      process.stdout.write = stdout
      process.stderr.write = stderr
    }
  })

describe("fast path to the supervisor (spawn, send)", () => {
  it.live("speaks the supervisor's protocol and prints what the full CLI prints", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const env = { ...process.env, HOME: s.home, ORCH_HOME: "", ORCH_CONFIG_PATH: s.config }
      assert.isUndefined((yield* fast(["spawn", "app", "1"], env)).code, "no supervisor: the full CLI runs")
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)

      assert.strictEqual(
        (yield* Effect.promise(() => pingSupervisor(join(s.dataDir, "orch.sock"))))?.pid,
        JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")).pid,
        "the light ping (orch status) speaks the protocol too"
      )
      const spawned = yield* fast(["spawn", "app", "1"], env)
      assert.strictEqual(spawned.code, 0)
      assert.strictEqual(spawned.stdout, "app-1\n")
      assert.match(spawned.stderr, /^orch: warning: repohost http:\/\/127\.0\.0\.1:9 unavailable: .*; spawning with the issue id alone\n$/)
      assert.deepStrictEqual(yield* fast(["send", "app-1", "hello", "there"], env), { code: 0, stdout: "delivered to app-1\n", stderr: "" })
      assert.deepStrictEqual(yield* fast(["spawn", "nope", "1"], env), {
        code: 2,
        stdout: "",
        stderr: `orch: no project "nope" in the config the running supervisor serves ${s.config} (projects: app); add the project to ${s.config}: ` +
          "the supervisor applies a saved change at once, without a restart\n"
      })
      assert.deepStrictEqual(yield* fast(["send", "app-7", "hi"], env), { code: 1, stdout: "", stderr: "orch: no session app-7\n" })
      // Where no config is found, it says which config the supervisor runs the command under, as the full CLI does.
      assert.deepStrictEqual(yield* fast(["send", "app-1", "from", "nowhere"], { ...env, ORCH_CONFIG_PATH: "" }), {
        code: 0,
        stdout: "delivered to app-1\n",
        stderr: `orch: using the running supervisor's config ${s.config}, as no config is found from here\n`
      })
      assert.isUndefined((yield* fast(["spawn", "app", "2", "--json"], env)).code, "flags take the full CLI")
      assert.isUndefined((yield* fast(["send", "app-1"], env)).code, "an empty message takes the full CLI (and its usage error)")

      const viaBin = yield* s.orch(["spawn", "app", "2"])
      assert.strictEqual(viaBin.stdout, "app-2\n")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live("a supervisor that was killed (its socket refuses): the fast path steps aside, and the full CLI does the work itself", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const env = { ...process.env, HOME: s.home, ORCH_HOME: "" }
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const { pid } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }
      process.kill(pid, "SIGKILL")
      yield* eventually("the supervisor to die", () => processGone(pid) || procState(pid) === "Z")
      assert.deepStrictEqual(yield* fast(["spawn", "app", "1"], env), { code: undefined, stdout: "", stderr: "" })
      assert.isUndefined(yield* Effect.promise(() => pingSupervisor(join(s.dataDir, "orch.sock"))))
      const viaBin = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(viaBin.code, 0, viaBin.stderr)
      assert.strictEqual(viaBin.stdout, "app-1\n")
      assert.deepStrictEqual(yield* s.orch(["send", "app-1", "hello"]), { code: 0, stdout: "delivered to app-1\n", stderr: "" })
    }), 60_000)

  it.live("batch-spawn: the lines or the JSON the full CLI prints, and its exit codes", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const env = { ...process.env, HOME: s.home, ORCH_HOME: "", ORCH_CONFIG_PATH: s.config }
      assert.isUndefined((yield* fast(["batch-spawn", "app", "1"], env)).code, "no supervisor: the full CLI runs")
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)

      const plain = yield* fast(["batch-spawn", "app", "1", "2"], env)
      assert.strictEqual(plain.code, 0, plain.stderr)
      const lines = plain.stdout.trimEnd().split("\n")
      assert.match(lines[0]!, /^1: created app-1 \(feat\/1\); warning: repohost http:\/\/127\.0\.0\.1:9 unavailable: /)
      assert.match(lines[1]!, /^2: created app-2 \(feat\/2\); warning: /)
      assert.strictEqual(lines[2], "created 2, skipped 0, failed 0")
      assert.strictEqual(plain.stderr, "")

      // --json anywhere: what the full CLI prints is the decoded outcomes, which encode back to exactly this.
      const json = yield* fast(["batch-spawn", "--json", "app", "2", "3"], env)
      assert.strictEqual(json.code, 0, json.stderr)
      const printed: unknown = JSON.parse(json.stdout)
      const outcomes = Schema.decodeUnknownSync(Schema.Array(BatchOutcome))(printed)
      assert.deepStrictEqual(Schema.encodeSync(Schema.Array(BatchOutcome))(outcomes), printed)
      assert.strictEqual(json.stdout, `${JSON.stringify(outcomes, null, 2)}\n`)
      assert.deepStrictEqual(outcomes.map((o) => o._tag), ["Skipped", "Created"])

      const refused = yield* fast(["batch-spawn", "app", "1", "x y"], env)
      assert.strictEqual(refused.code, 2, "an id that is not an issue id refuses the whole batch")
      assert.match(refused.stderr, /^orch: "x y" is not an issue id here: expected letters, digits/)
      assert.isUndefined((yield* fast(["batch-spawn", "app", "--json"], env)).code, "no issue: the full CLI's usage error")
      assert.isUndefined((yield* fast(["batch-spawn", "app", "4", "--yes"], env)).code, "another flag takes the full CLI")
      assert.isUndefined((yield* fast(["batch-spawn", "app", "4", "--json", "--json"], env)).code, "--json twice: the full CLI's usage error")

      // A supervisor that holds its socket but does not answer (stopped) is said so in 2 s and sent nothing.
      const { pid } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }
      process.kill(pid, "SIGSTOP")
      const frozen = Effect.all([fast(["batch-spawn", "app", "8"], env), s.orch(["status"]), s.orch(["queue", "ls", "--json"])]).pipe(
        Effect.ensuring(Effect.sync(() => process.kill(pid, "SIGCONT")))
      )
      const [unanswered, status, queued] = yield* frozen
      const silent = `the supervisor (pid ${pid}) is paused (stopped by Ctrl-Z or \`kill -STOP\`), so it holds ${join(s.dataDir, "orch.sock")} ` +
        `but it did not answer within 2s; \`kill -CONT ${pid}\` lets it go on, or \`kill -9 ${pid}\` and \`orch start\` replace it`
      assert.deepStrictEqual(unanswered, { code: 1, stdout: "", stderr: `orch: ${silent}\n` })
      // orch status says so too, rather than that no supervisor runs.
      assert.strictEqual(status.code, 0)
      assert.strictEqual(status.stderr, `orch: warning: ${silent}\n`)
      assert.include(status.stdout, "The supervisor does not answer, so live sessions show what was last recorded (RECORDED)")
      assert.notInclude(status.stdout, "No supervisor is running")
      // And orch queue ls, which shows the queue as its files hold it.
      assert.deepStrictEqual(queued, { code: 0, stdout: "[]\n", stderr: `orch: warning: ${silent}\n` })
      // Once it runs again and has carried out a later batch, nothing of issue 8 is anywhere: it was never asked for.
      assert.strictEqual((yield* fast(["batch-spawn", "app", "9"], env)).code, 0)
      const listed = JSON.parse((yield* s.orch(["status", "--json"])).stdout) as ReadonlyArray<{ issueId: string }>
      assert.deepStrictEqual(listed.map((row) => row.issueId).filter((id) => id !== "orchestrator").sort(), ["1", "2", "3", "9"])
      const events = readFileSync(join(s.dataDir, "events.jsonl"), "utf8")
      assert.match(events, /"issueId":"9"/)
      assert.notMatch(events, /"issueId":"8"/)
      // The clients that gave up on it are no errors of the supervisor's: its log has none for them.
      assert.notInclude(readFileSync(join(s.dataDir, "supervisor.log"), "utf8"), "Unhandled error in SocketServer")
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 60_000)

  it("a batch with failures exits 1 with the full CLI's last words", () => {
    const outcomes = [
      { _tag: "Failed", issueId: "5", reason: "branch feat/5 is already checked out at /elsewhere" },
      { _tag: "Queued", issueId: "6", entryId: "q-1", position: 1, reason: "maxSessions 1 reached" }
    ]
    assert.deepStrictEqual(printBatch(false)(outcomes), {
      stdout: "5: failed: branch feat/5 is already checked out at /elsewhere\n6: queued as q-1, position 1 (maxSessions 1 reached)\n" +
        "created 0, skipped 0, failed 1, queued 1\n" +
        "Nothing started now: the issue waits in the queue (maxSessions 1 reached); it starts on its own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows it and why it waits.\n",
      stderr: "orch: 1 spawn failed\n",
      exitCode: 1
    })
    assert.isUndefined(printBatch(true)([{ _tag: "Created", issueId: "7" }]), "an answer it cannot read")
  })
})
