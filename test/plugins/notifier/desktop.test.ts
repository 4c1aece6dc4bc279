import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { chmodSync, existsSync, readFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import type { Notification } from "../../../src/domain/notification.ts"
import { appleScriptString, makeDesktopNotifier } from "../../../src/plugins/notifier/desktop.ts"
import type { ExecResult } from "../../../src/process/exec.ts"
import { tempDir, writeFile } from "../../support/host.ts"

const notification = (priority: Notification["priority"], title: string, message: string): Notification => ({
  id: `n-${title}`,
  type: "session.stuck",
  priority,
  title,
  message,
  timestamp: "2026-05-01T10:00:00.000Z"
})

/** A fake `notify-send` first on PATH (for this test) that writes each argument on its own line, then `---`. */
const fakeNotifySend = (script: string) =>
  Effect.gen(function*() {
    const dir = yield* tempDir()
    const log = join(dir, "calls.log")
    chmodSync(writeFile(join(dir, "bin", "notify-send"), `#!/bin/sh\n${script.replaceAll("$LOG", log)}\n`), 0o755)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const saved = process.env.PATH
        process.env.PATH = `${join(dir, "bin")}${delimiter}${saved ?? ""}`
        return saved
      }),
      (saved) => Effect.sync(() => void (process.env.PATH = saved))
    )
    return { calls: () => existsSync(log) ? readFileSync(log, "utf8").split("---\n").filter(Boolean).map((c) => c.split("\n").slice(0, -1)) : [] }
  })

const RECORD = `for a in "$@"; do printf '%s\\n' "$a" >> "$LOG"; done; printf -- '---\\n' >> "$LOG"`

describe("notifier desktop", () => {
  it.live("Linux: runs notify-send (a real process) with app name, urgency and the text", () =>
    Effect.gen(function*() {
      const fake = yield* fakeNotifySend(RECORD)
      const desktop = yield* makeDesktopNotifier("desktop", { platform: "linux" })
      assert.isUndefined(desktop.unavailable)
      yield* desktop.notify(notification("urgent", "app-1 is stuck", "it's \"stuck\"\nfor 10m"))
      yield* desktop.notifyWithActions(notification("info", "-dash title", "done"), [{ label: "Open", url: "https://x" }])
      yield* desktop.post("hello", {})
      assert.deepStrictEqual(fake.calls(), [
        ["--app-name=orch", "--urgency=critical", "--", "app-1 is stuck", "it's \"stuck\"", "for 10m"],
        ["--app-name=orch", "--urgency=normal", "--", "-dash title", "done"],
        ["--app-name=orch", "--urgency=normal", "--", "orch", "hello"]
      ])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("Linux: a failing or hanging notify-send is a NotifierError", () =>
    Effect.gen(function*() {
      yield* fakeNotifySend(`echo "Cannot connect to D-Bus" >&2; exit 1`)
      const failing = yield* makeDesktopNotifier("desktop", { platform: "linux" })
      const failed = yield* Effect.flip(failing.notify(notification("info", "t", "m")))
      assert.strictEqual(
        failed.message,
        "notifier desktop: notify-send exited with 1 (Cannot connect to D-Bus); check that a desktop session with notifications is running, or take this notifier out of notificationRouting"
      )

      yield* fakeNotifySend(`exec sleep 10`)
      const hanging = yield* makeDesktopNotifier("desktop", { platform: "linux", timeout: "200 millis" })
      const timedOut = yield* Effect.flip(hanging.notify(notification("info", "t", "m")))
      assert.include(timedOut.reason, "timed out after 200ms")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("macOS: osascript with the text as escaped AppleScript strings", () =>
    Effect.gen(function*() {
      const runs: Array<readonly [string, ReadonlyArray<string>]> = []
      const run = (file: string, args: ReadonlyArray<string>) =>
        Effect.sync((): ExecResult => (runs.push([file, args]), { exitCode: 0, stdout: "", stderr: "" }))
      const desktop = yield* makeDesktopNotifier("desktop", { platform: "darwin", which: (cmd) => cmd === "osascript", run })
      yield* desktop.notify(notification("urgent", `say "hi" \\ there`, "line 1\nline \"2\""))
      yield* desktop.notify(notification("warning", "plain", "text"))
      assert.deepStrictEqual(runs, [
        ["osascript", ["-e", `display notification "line 1 line \\"2\\"" with title "say \\"hi\\" \\\\ there" sound name "default"`]],
        ["osascript", ["-e", `display notification "text" with title "plain"`]]
      ])
      assert.strictEqual(appleScriptString(`a"b\\c`), `"a\\"b\\\\c"`)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("without notify-send or osascript: every notification fails, saying why and what to do", () =>
    Effect.gen(function*() {
      const run = () => Effect.die("must not run anything")
      const linux = yield* makeDesktopNotifier("desktop", { platform: "linux", which: () => false, run })
      const mac = yield* makeDesktopNotifier("desktop", { platform: "darwin", which: () => false, run })
      const windows = yield* makeDesktopNotifier("desktop2", { platform: "win32", which: () => true, run })
      const noNotifySend = "notify-send was not found on PATH; install libnotify-bin (or libnotify), or take this notifier out of notificationRouting"
      assert.strictEqual(linux.unavailable, noNotifySend)
      for (
        const attempt of [linux.notify(notification("urgent", "t", "m")), linux.post("m", {}), linux.notifyWithActions(notification("info", "t", "m"), [])]
      ) {
        const failed = yield* Effect.flip(attempt)
        assert.deepInclude(failed, { _tag: "NotifierError", notifier: "desktop", reason: noNotifySend })
      }
      assert.strictEqual(
        (yield* Effect.flip(mac.notify(notification("info", "t", "m")))).reason,
        "osascript was not found on PATH; put /usr/bin on PATH, or take this notifier out of notificationRouting"
      )
      assert.strictEqual(
        (yield* Effect.flip(windows.notify(notification("info", "t", "m")))).message,
        "notifier desktop2: desktop notifications work on Linux and macOS only, not win32; take this notifier out of notificationRouting"
      )
    }).pipe(Effect.provide(NodeServices.layer)))
})
