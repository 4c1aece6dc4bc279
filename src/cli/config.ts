/**
 * `orch config validate|show|schema`. The config modules (and `yaml`) load when a command here runs, not when the
 * command tree does: `orch --help` and `orch status` print nothing of them.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const fileArgument = (what: string) =>
  Argument.String("file").pipe(Argument.withDescription(`Config file to ${what} (default: the one orch would load)`), Argument.optional)

/** A file named on the command line that cannot be read is that, not "no config found" (which is about the search). */
const readable = (file: Option.Option<string>) =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (given) => {
      const named = resolve(given)
      return Effect.flatMap(
        Effect.promise(() => Promise.all([import("../config/errors.ts"), import("../process/file-problem.ts")])),
        ([{ ConfigReadError }, { fileProblem }]) =>
          Effect.try({ try: () => (readFileSync(named), given), catch: (error) => new ConfigReadError({ file: named, reason: fileProblem(named, error) }) })
      )
    }
  })

const validate = Command.make(
  "validate",
  { file: fileArgument("check") },
  Effect.fn("cli.config.validate")(function*({ file }) {
    // The file, then its plugins: names, the built-ins' own keys, the modules' manifests (src/plugins/config-check.ts).
    const { loadCheckedConfig } = yield* Effect.promise(() => import("../plugins/config-check.ts"))
    const { config, path } = yield* loadCheckedConfig(yield* readable(file))
    const count = Object.keys(config.projects).length
    yield* Console.log(`${path}: valid (${count} project${count === 1 ? "" : "s"})`)
  })
).pipe(Command.withDescription("Check a config file (its plugins too) and print every problem in it, each with file:line:col"))

const show = Command.make(
  "show",
  {
    file: fileArgument("show"),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON instead of YAML"))
  },
  Effect.fn("cli.config.show")(function*({ file, json }) {
    const [{ loadConfigWithPath }, { redactSecrets }, { stringify }] = yield* Effect.promise(() =>
      Promise.all([import("../config/load.ts"), import("../config/redact.ts"), import("yaml")])
    )
    const { config } = yield* loadConfigWithPath(yield* readable(file))
    const shown = redactSecrets(config)
    yield* Console.log(json ? JSON.stringify(shown, null, 2) : stringify(shown, { lineWidth: 0 }).trimEnd())
  })
).pipe(Command.withDescription("Print a config with every default filled in (secrets hidden)"))

const schema = Command.make(
  "schema",
  {},
  () =>
    Effect.flatMap(
      Effect.promise(() => import("../config/json-schema.ts")),
      ({ renderConfigJsonSchema }) => Effect.sync(() => process.stdout.write(renderConfigJsonSchema()))
    )
).pipe(
  Command.withDescription("Print the JSON Schema of orchestrator.yaml")
)

export const config = Command.make("config").pipe(
  Command.withDescription("Check and show the configuration"),
  Command.withSubcommands([validate, show, schema])
)
