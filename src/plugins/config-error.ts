/** A plugin's settings are missing or wrong: it cannot be created. A configuration error (exit 2). */
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

export class PluginConfigError extends Schema.TaggedError<PluginConfigError>()("PluginConfigError", {
  key: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `${this.key}: ${this.reason}`
  }
}
