/** `orch config validate|show|schema`. */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { stringify } from "yaml"
import { ConfigReadError } from "../config/errors.ts"
import { renderConfigJsonSchema } from "../config/json-schema.ts"
import { loadConfigWithPath } from "../config/load.ts"
import { redactSecrets } from "../config/redact.ts"
import { fileProblem } from "../process/file-problem.ts"

const validate = Command.make(
  "validate",
  { file: Argument.String("file").pipe(Argument.withDescription("Config file (default: the one orch would load)"), Argument.optional) },
  Effect.fn("cli.config.validate")(function*({ file }) {
    // The file, then the built-in plugins' own keys (tracker-b's, scm's mergeMethod), checked as creating them would.
    const { loadCheckedConfig } = yield* Effect.promise(() => import("../plugins/settings.ts"))
    // A file named here that cannot be read is that, not "no config found" (which is about the search).
    if (file._tag === "Some") {
      const named = resolve(file.value)
      yield* Effect.try({ try: () => readFileSync(named), catch: (error) => new ConfigReadError({ file: named, reason: fileProblem(named, error) }) })
    }
    const { config, path } = yield* loadCheckedConfig(file._tag === "Some" ? file.value : undefined)
    const count = Object.keys(config.projects).length
    yield* Console.log(`${path}: valid (${count} project${count === 1 ? "" : "s"})`)
  })
).pipe(Command.withDescription("Check a config file and print every problem in it"))

const show = Command.make(
  "show",
  { json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON instead of YAML")) },
  Effect.fn("cli.config.show")(function*({ json }) {
    const { config } = yield* loadConfigWithPath()
    const shown = redactSecrets(config)
    yield* Console.log(json ? JSON.stringify(shown, null, 2) : stringify(shown, { lineWidth: 0 }).trimEnd())
  })
).pipe(Command.withDescription("Print the loaded config with every default filled in (secrets hidden)"))

const schema = Command.make("schema", {}, () => Effect.sync(() => process.stdout.write(renderConfigJsonSchema()))).pipe(
  Command.withDescription("Print the JSON Schema of orchestrator.yaml")
)

export const config = Command.make("config").pipe(
  Command.withDescription("Check and show the configuration"),
  Command.withSubcommands([validate, show, schema])
)
