/**
 * Notifier `desktop`: `notify-send` on Linux, `osascript` on macOS. Where neither exists every notification
 * fails with a NotifierError saying why and what to do (the router records it as `notification.failed`); a
 * command that exits non-zero, cannot start or hangs fails the same way. It never claims a delivery it did not make.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "effect/process"
import { accessSync, constants, statSync } from "node:fs"
import { delimiter, join } from "node:path"
import type { MessageContext, Notification } from "../../domain/notification.ts"
import { exec, type ExecError, type ExecResult } from "../../process/exec.ts"
import { NotifierError, type NotifierShape } from "./Notifier.ts"

export interface DesktopOptions {
  readonly platform?: NodeJS.Platform
  /** Whether a command can be run; default: an executable file of that name on PATH. */
  readonly which?: (cmd: string) => boolean
  /** Runs the command; default: `exec` with the spawner of the creating context. */
  readonly run?: (file: string, args: ReadonlyArray<string>) => Effect.Effect<ExecResult, ExecError>
  readonly timeout?: Duration.Input
}

export const onPath = (cmd: string): boolean =>
  (process.env.PATH ?? "").split(delimiter).some((dir) => {
    if (dir === "") return false
    try {
      accessSync(join(dir, cmd), constants.X_OK)
      return statSync(join(dir, cmd)).isFile()
    } catch {
      return false
    }
  })

/** A string literal for AppleScript: backslashes and double quotes escaped, line breaks as spaces. */
export const appleScriptString = (text: string): string => `"${text.replace(/[\r\n]+/g, " ").replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`

type Show = (title: string, body: string, urgent: boolean) => readonly [file: string, args: ReadonlyArray<string>]

const ROUTE_AWAY = "or take this notifier out of notificationRouting"

/** The command that shows a notification on this platform, or why there is none (one sentence, with what to do). */
const choose = (platform: NodeJS.Platform, which: (cmd: string) => boolean): Show | string => {
  if (platform === "linux") {
    return which("notify-send")
      ? (title, body, urgent) => ["notify-send", ["--app-name=orch", `--urgency=${urgent ? "critical" : "normal"}`, "--", title, body]]
      : `notify-send was not found on PATH; install libnotify-bin (or libnotify), ${ROUTE_AWAY}`
  }
  if (platform === "darwin") {
    return which("osascript")
      ? (title, body, urgent) => [
        "osascript",
        ["-e", `display notification ${appleScriptString(body)} with title ${appleScriptString(title)}${urgent ? " sound name \"default\"" : ""}`]
      ]
      : `osascript was not found on PATH; put /usr/bin on PATH, ${ROUTE_AWAY}`
  }
  return `desktop notifications work on Linux and macOS only, not ${platform}; take this notifier out of notificationRouting`
}

export const makeDesktopNotifier = Effect.fnUntraced(function*(name: string, options: DesktopOptions = {}) {
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  const platform = options.platform ?? process.platform
  const which = options.which ?? onPath
  const timeout = options.timeout ?? Duration.seconds(10)
  const run = options.run ?? ((file, args) => exec(file, args, { timeout }).pipe(Effect.provide(context)))

  const chosen = choose(platform, which)
  const unavailable = typeof chosen === "string" ? chosen : undefined

  const display = Effect.fnUntraced(function*(title: string, body: string, urgent: boolean) {
    if (typeof chosen === "string") return yield* new NotifierError({ notifier: name, reason: chosen })
    const [file, args] = chosen(title, body, urgent)
    // What to look at when the command is there but does not show anything.
    const check = `check that a desktop session with notifications is running, ${ROUTE_AWAY}`
    const result = yield* run(file, args).pipe(Effect.mapError((error) => new NotifierError({ notifier: name, reason: `${error.message}; ${check}` })))
    if (result.exitCode !== 0) {
      const detail = result.stderr.trim().split("\n").slice(-2).join(" ")
      return yield* new NotifierError({ notifier: name, reason: `${file} exited with ${result.exitCode}${detail !== "" ? ` (${detail})` : ""}; ${check}` })
    }
  })

  const notify = Effect.fn("Notifier.desktop.notify")(function*(notification: Notification) {
    yield* display(notification.title, notification.message, notification.priority === "urgent")
  })
  return {
    name,
    ...(unavailable !== undefined ? { unavailable } : {}),
    notify,
    notifyWithActions: (notification, _actions) => notify(notification),
    post: Effect.fn("Notifier.desktop.post")(function*(message: string, _context: MessageContext) {
      yield* display("orch", message, false)
    })
  } satisfies NotifierShape
})
