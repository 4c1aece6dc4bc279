/** A plugin's settings are missing or wrong: it cannot be created. A configuration error (exit 2). */
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { didYouMean } from "../config/suggest.ts"

export class PluginConfigError extends Schema.TaggedError<PluginConfigError>()("PluginConfigError", {
  key: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `${this.key}: ${this.reason}`
  }
}

/**
 * A key of a built-in plugin's `settings` that it does not read (a typo would otherwise be ignored, silently), as
 * an error naming it with a "did you mean"; undefined when every key is one of `known`. `what` names the plugin.
 */
export const unknownSettingProblem = (
  settings: object | undefined,
  known: ReadonlyArray<string>,
  where: string,
  what: string
): PluginConfigError | undefined => {
  const unknown = Object.keys(settings ?? {}).find((key) => !known.includes(key))
  return unknown === undefined ? undefined : new PluginConfigError({ key: `${where}.${unknown}`, reason: `unknown ${what} key${didYouMean(unknown, known)}` })
}
