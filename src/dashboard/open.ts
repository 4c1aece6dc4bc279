/** Opening a URL or a folder with the desktop's default application (`open` on macOS, `xdg-open` elsewhere). */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"

export class OpenFailed extends Schema.TaggedError<OpenFailed>()("OpenFailed", { target: Schema.String, reason: Schema.String }) {
  override get message() {
    return `cannot open ${this.target}: ${this.reason}`
  }
}

export const opener = (): string => (process.platform === "darwin" ? "open" : "xdg-open")

/** Starts the opener and returns once it runs; it is not waited for. */
export const openOnThisMachine = (target: string): Effect.Effect<void, OpenFailed> =>
  Effect.callback<void, OpenFailed>((resume) => {
    const command = opener()
    try {
      const child = spawn(command, [target], { detached: true, stdio: "ignore" })
      child.once("spawn", () => {
        child.unref()
        resume(Effect.void)
      })
      child.once("error", (error: NodeJS.ErrnoException) =>
        resume(Effect.fail(new OpenFailed({ target, reason: error.code === "ENOENT" ? `${command} is not installed` : error.message }))))
    } catch (error) {
      resume(Effect.fail(new OpenFailed({ target, reason: error instanceof Error ? error.message : String(error) })))
    }
  })
