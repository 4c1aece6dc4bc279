/** `orch init [--force]`: writes a commented orchestrator.yaml here, with a project for this git repository. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { Command, Flag } from "effect/cli"
import { existsSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { Host } from "../config/host.ts"
import { repoFromRemoteUrl } from "../config/remote.ts"
import { renderInitConfig, type InitProject } from "../config/template.ts"
import { getDefaultConfig } from "../config/validate.ts"
import { exec } from "../process/exec.ts"

export class ConfigExistsError extends Schema.TaggedError<ConfigExistsError>()("ConfigExistsError", {
  file: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `${this.file} already exists; use --force to overwrite it`
  }
}

const git = (cwd: string, ...args: Array<string>) =>
  exec("git", args, { cwd, timeout: "5 seconds" }).pipe(
    Effect.map((result) => (result.exitCode === 0 ? result.stdout.trim() : undefined)),
    Effect.orElseSucceed(() => undefined)
  )

/** The project for the git repository around `cwd`, when its `origin` names an `owner/repo`. */
const detectProject = Effect.fnUntraced(function*(cwd: string) {
  const root = yield* git(cwd, "rev-parse", "--show-toplevel")
  if (!root) return undefined
  const remote = yield* git(root, "remote", "get-url", "origin")
  const repo = remote === undefined ? undefined : repoFromRemoteUrl(remote)
  if (repo === undefined) return undefined
  const originHead = yield* git(root, "symbolic-ref", "--short", "refs/remotes/origin/HEAD")
  const current = yield* git(root, "symbolic-ref", "--short", "HEAD")
  const defaultBranch = originHead?.replace(/^origin\//, "") || current || "main"
  return { key: basename(root), repo, path: root, defaultBranch } satisfies InitProject
})

export const init = Command.make(
  "init",
  { force: Flag.Boolean("force").pipe(Flag.withDefault(false), Flag.withDescription("Overwrite an existing orchestrator.yaml")) },
  Effect.fn("cli.init")(function*({ force }) {
    const { cwd } = yield* Host
    const file = join(cwd, "orchestrator.yaml")
    if (existsSync(file) && !force) return yield* new ConfigExistsError({ file })
    const project = yield* detectProject(cwd)
    writeFileSync(file, renderInitConfig(yield* getDefaultConfig(), project))
    yield* Console.log(`Wrote ${file}${project ? ` with project "${project.key}" (${project.repo})` : ""}`)
    if (!project) yield* Console.log("Add your projects under `projects:`, then check it with `orch config validate`.")
  })
).pipe(Command.withDescription("Create orchestrator.yaml in the current directory from the defaults"))
