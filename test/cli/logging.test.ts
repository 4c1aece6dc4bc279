/**
 * Log lines never reach a command's output in Effect's logger format: a command prints warnings and errors as its
 * other messages read, and the supervisor appends everything to supervisor.log.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { existsSync, readFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { commandLoggerLayer, logLine, supervisorLoggerLayer } from "../../src/cli/logging.ts"
import { tempDir } from "../support/host.ts"
import { sandbox } from "../support/orch-sandbox.ts"

/** What `effect` writes to stderr while it runs. */
const stderrOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.promise(async () => {
    const written: Array<string> = []
    const write = process.stderr.write
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write
    try {
      await Effect.runPromise(Effect.exit(effect))
    } finally {
      process.stderr.write = write
    }
    return written.join("")
  })

describe("logLine", () => {
  it.each([
    ["words", ["desktop notifications are off"], Cause.empty, "desktop notifications are off"],
    ["several parts, one line", ["could not deliver", { to: "chat" }, "now"], Cause.empty, "could not deliver {\"to\":\"chat\"} now"],
    ["a cause, by its message", ["lost"], Cause.fail(new Error("the socket closed\n  at x")), "lost: the socket closed at x"]
  ])("%s", (_, message, cause, expected) => assert.strictEqual(logLine(message, cause), expected))
})

describe("loggers", () => {
  it.live("a command prints a warning as `orch: warning: …` and an error as `orch: …`; nothing below a warning", () =>
    Effect.gen(function*() {
      const written = yield* stderrOf(
        Effect.gen(function*() {
          yield* Effect.logInfo("chatter")
          yield* Effect.logDebug("more chatter")
          yield* Effect.logWarning("desktop notifications are off: notify-send was not found on PATH")
          yield* Effect.logError("the socket closed", Cause.fail(new Error("EPIPE")))
        }).pipe(Effect.provide(commandLoggerLayer))
      )
      assert.strictEqual(written, "orch: warning: desktop notifications are off: notify-send was not found on PATH\norch: the socket closed: EPIPE\n")
    }))

  it.live("the supervisor appends every line, timestamped, to supervisor.log, and prints nothing", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const written = yield* stderrOf(
        Effect.gen(function*() {
          yield* Effect.logInfo("adopted 3 sessions")
          yield* Effect.logWarning("notifier chat could not deliver")
        }).pipe(Effect.provide(supervisorLoggerLayer(root)))
      )
      assert.strictEqual(written, "")
      const lines = readFileSync(join(root, "supervisor.log"), "utf8").trim().split("\n")
      assert.strictEqual(lines.length, 2)
      assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO adopted 3 sessions$/)
      assert.match(lines[1]!, /^\S+ WARN notifier chat could not deliver$/)
    }))
})

describe("the supervisor's log and causes", () => {
  it.live("an expected failure (a typed error) is one line with its reason; a defect brings its full cause", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      class HostSaidNo extends Schema.TaggedError<HostSaidNo>()("HostSaidNo", {}) {
        override get message() {
          return "the repohost answered 404"
        }
      }
      yield* Effect.gen(function*() {
        yield* Effect.logError("the PR poll failed", Cause.fail(new HostSaidNo()))
        yield* Effect.logError("the probe cycle failed", Cause.die(new TypeError("cannot read x of undefined")))
      }).pipe(Effect.provide(supervisorLoggerLayer(root)))
      const log = readFileSync(join(root, "supervisor.log"), "utf8")
      const [first, second, ...stack] = log.trim().split("\n")
      assert.match(first!, /^\S+ ERROR the PR poll failed: the repohost answered 404$/)
      assert.match(second!, /^\S+ ERROR the probe cycle failed$/)
      assert.include(stack.join("\n"), "TypeError: cannot read x of undefined")
      assert.match(stack.join("\n"), /^\s+at /m, "the defect's stack, for whoever debugs")
    }))
})

describe("a command's output (the built CLI)", () => {
  it.live("a notifier that warns (desktop, with no notify-send) adds plain `orch:` lines, never a logger line", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !existsSync(join(dir, "notify-send"))).join(delimiter)
      const run = yield* s.orch(["notify", "--priority", "urgent", "hello"], { PATH: path })
      // Whether an unavailable desktop notifier fails the command is the notifier's own policy; the words are ours.
      assert.include(run.stdout, "hosted: delivered")
      for (const line of run.stderr.split("\n").filter((l) => l !== "")) assert.match(line, /^orch: /)
      assert.notMatch(`${run.stdout}${run.stderr}`, /\[\d\d:\d\d:\d\d|\b(?:WARN|ERROR|INFO) \(#\d+\)/)
    }), 30_000)
})
