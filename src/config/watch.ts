/**
 * Noticing that the config file may have changed. The file's directory is watched rather than the file: an
 * editor that saves by writing a new file and renaming it over the old one replaces the inode, and a watch on
 * the old inode would go quiet. Events come in bursts (a save is several writes, or a write and a rename);
 * the consumer debounces them.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { watch } from "node:fs"
import { basename, dirname } from "node:path"

export class ConfigWatchFailed extends Schema.TaggedError<ConfigWatchFailed>()("ConfigWatchFailed", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot watch ${dirname(this.file)} for changes to ${basename(this.file)}: ${this.reason}`
  }
}

const reasonOf = (error: unknown) =>
  typeof (error as NodeJS.ErrnoException)?.code === "string" ? (error as NodeJS.ErrnoException).code! : error instanceof Error ? error.message : String(error)

/**
 * One element each time `file` may have changed, and one as soon as the watch is set up (a change made before
 * it would otherwise go unseen). Fails when the directory cannot be watched, or the watch breaks.
 */
export const watchConfigFile = (file: string): Stream.Stream<void, ConfigWatchFailed> =>
  Stream.callback<void, ConfigWatchFailed>((queue) =>
    Effect.acquireRelease(
      Effect.try({
        try: () => {
          const name = basename(file)
          const watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
            if (changed === null || changed === name) Queue.offerUnsafe(queue, undefined)
          })
          watcher.on("error", (error) => Queue.failCauseUnsafe(queue, Cause.fail(new ConfigWatchFailed({ file, reason: reasonOf(error) }))))
          Queue.offerUnsafe(queue, undefined)
          return watcher
        },
        catch: (error) => new ConfigWatchFailed({ file, reason: reasonOf(error) })
      }),
      (watcher) => Effect.sync(() => watcher.close())
    ), { bufferSize: 1, strategy: "sliding" })
