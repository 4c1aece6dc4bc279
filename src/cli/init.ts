/**
 * `orch init [--force] [--user]`: writes a commented orchestrator.yaml here, with a project for this git repository;
 * or, with `--user` (asked when stdin is a terminal), adds the repository to the user-level config instead, found from
 * any directory (see src/config/user-config.ts).
 */
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { isFile, searchPlaces } from "../config/find.ts"
import { Host } from "../config/host.ts"
import { parseConfigText } from "../config/load.ts"
import { remoteKind, repoFromRemoteUrl } from "../config/remote.ts"
import { type InitProject, renderInitConfig } from "../config/template.ts"
import { addProjectToConfigText, tildePath, userConfigFile } from "../config/user-config.ts"
import { getDefaultConfig, validateConfig } from "../config/validate.ts"
import { exec } from "../process/exec.ts"

export class ConfigExistsError extends Schema.TaggedError<ConfigExistsError>()("ConfigExistsError", {
  file: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `${this.file} already exists; use --force to overwrite it`
  }
}

/** `orch init --user` could not add the repository; nothing was written. */
export class InitRefused extends Schema.TaggedError<InitRefused>()("InitRefused", {
  reason: Schema.String,
  exitCode: Schema.Int
}) {
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
  override get message() {
    return this.reason
  }
}

const git = (cwd: string, ...args: Array<string>) =>
  exec("git", args, { cwd, timeout: "5 seconds" }).pipe(
    Effect.map((result) => (result.exitCode === 0 ? result.stdout.trim() : undefined)),
    // No git, or no repository here: there is nothing to detect, and the template says what to fill in.
    Effect.orElseSucceed(() => undefined)
  )

/** The project for the git repository around `cwd`; a local one (tracker and scm `none`) when its origin is not on GitHub. */
const detectProject = Effect.fnUntraced(function*(cwd: string) {
  const root = yield* git(cwd, "rev-parse", "--show-toplevel")
  if (!root) return undefined
  const origin = yield* git(root, "remote", "get-url", "origin")
  const kind = remoteKind(origin)
  const originHead = yield* git(root, "symbolic-ref", "--short", "refs/remotes/origin/HEAD")
  const current = yield* git(root, "symbolic-ref", "--short", "HEAD")
  const defaultBranch = originHead?.replace(/^origin\//, "") || current || "main"
  const key = basename(root)
  const project: InitProject = kind._tag === "GitHub"
    ? { key, repo: kind.repo, path: root, defaultBranch }
    : { key, repo: localRepoName(origin, key), path: root, defaultBranch, local: true }
  return { project, localReason: kind._tag === "Local" ? kind.reason : undefined }
})

/** A non-GitHub origin's own `owner/repo` when it has one (gitlab.com/acme/app), else `local/<directory>`. */
const localRepoName = (origin: string | undefined, key: string) => {
  const url = origin?.trim() ?? ""
  const repo = url.startsWith("/") || url.startsWith(".") ? undefined : repoFromRemoteUrl(url)
  return repo ?? `local/${key.replace(/[^A-Za-z0-9_.-]/g, "-")}`
}

/** What the project line of a report says. */
const describeProject = (project: InitProject, localReason: string | undefined) =>
  `project "${project.key}" (${project.repo})${
    localReason !== undefined
      ? `; ${localReason}: added with tracker: none and scm: none, so spawns look nothing up (use orch spawn ${project.key} --task "…")`
      : ""
  }`

/** The answer to "user config or this repository?": yes (the default) is the user config. Pure. */
export const wantsUserConfig = (answer: string): boolean | undefined => {
  const word = answer.trim().toLowerCase()
  if (word === "" || word === "y" || word === "yes" || word === "u" || word === "user") return true
  if (word === "n" || word === "no" || word === "r" || word === "repo" || word === "here") return false
  return undefined
}

const ask = (question: string) =>
  Effect.callback<string>((resume) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout })
    let answered = false
    rl.question(question, (answer) => {
      answered = true
      rl.close()
      resume(Effect.succeed(answer))
    })
    // Ctrl-D: the default.
    rl.on("close", () => {
      if (!answered) resume(Effect.succeed(""))
    })
    return Effect.sync(() => rl.close())
  })

const askWhere = Effect.fnUntraced(function*(key: string, file: string) {
  for (;;) {
    const answer = wantsUserConfig(
      yield* ask(
        `Add "${key}" to your user config ${file} (one file for all your repositories, found from any directory) instead of writing orchestrator.yaml here? [Y/n] `
      )
    )
    if (answer !== undefined) return answer
  }
})

const writeRepoConfig = Effect.fnUntraced(
  function*(cwd: string, force: boolean, detected: { project: InitProject; localReason: string | undefined } | undefined) {
    const file = join(cwd, "orchestrator.yaml")
    if (existsSync(file) && !force) return yield* new ConfigExistsError({ file })
    writeFileSync(file, renderInitConfig(yield* getDefaultConfig(), detected?.project))
    if (detected === undefined) {
      yield* Console.log(`Wrote ${file} with no project: this is not a git repository`)
      return yield* Console.log("Add your projects under `projects:`, then check it with `orch config validate`.")
    }
    yield* Console.log(`Wrote ${file} with ${describeProject(detected.project, detected.localReason)}`)
  }
)

const addToUserConfig = Effect.fnUntraced(function*(cwd: string, detected: { project: InitProject; localReason: string | undefined }) {
  const { homeDir, env } = yield* Host
  const file = userConfigFile(homeDir, isFile)
  const { project, localReason } = detected
  if (!isFile(file)) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, renderInitConfig(yield* getDefaultConfig(), { ...project, path: tildePath(project.path, homeDir) }))
    yield* Console.log(`Wrote your user config ${file} (found from any directory) with ${describeProject(project, localReason)}`)
  } else {
    const text = readFileSync(file, "utf8")
    const result = addProjectToConfigText(text, file, project, homeDir)
    if (result._tag === "AlreadyThere") {
      return yield* Console.log(`${file} already has this repository, as project "${result.key}"; nothing was changed`)
    }
    if (result._tag === "Refused") {
      return yield* new InitRefused({
        reason: `${file} was left as it was: ${result.reason}; add this repository to it by hand under another key`,
        exitCode: 1
      })
    }
    // The merged file must still be a valid config (no duplicate session prefix, …) before it replaces the user's.
    yield* parseConfigText(file, result.text).pipe(
      Effect.flatMap(({ raw, locate }) => validateConfig(raw, { configPath: file, locate })),
      Effect.mapError((error) =>
        new InitRefused({ reason: `${file} was left as it was: with "${project.key}" added it would not load: ${error.message.split("\n")[0]}`, exitCode: 1 })
      )
    )
    writeFileSync(file, result.text)
    yield* Console.log(`Added ${describeProject(project, localReason)} to your user config ${file}, keeping everything else in it`)
  }
  const first = searchPlaces({ env: { ...env, ORCH_CONFIG_PATH: undefined }, homeDir, cwd }).find(isFile)
  if (first !== undefined && first !== file) yield* Console.log(`Note: from here ${first} is found first, so commands run here use it and not the user config`)
})

export const init = Command.make(
  "init",
  {
    force: Flag.Boolean("force").pipe(Flag.withDefault(false), Flag.withDescription("Overwrite an existing orchestrator.yaml")),
    user: Flag.Boolean("user").pipe(
      Flag.withAlias("global"),
      Flag.withDefault(false),
      Flag.withDescription(
        "Add this repository to your user config (~/.config/orchestrator/config.yaml), found from any directory, instead of writing orchestrator.yaml here; asked when run in a terminal"
      )
    )
  },
  Effect.fn("cli.init")(function*({ force, user }) {
    const { cwd, homeDir } = yield* Host
    const detected = yield* detectProject(cwd)
    if (user && detected === undefined) {
      return yield* new InitRefused({
        reason: "orch init --user adds the git repository you are in, and this is not one; run it inside the repository",
        exitCode: 2
      })
    }
    const toUser = user ||
      (detected !== undefined && process.stdin.isTTY === true && (yield* askWhere(detected.project.key, tildePath(userConfigFile(homeDir, isFile), homeDir))))
    if (toUser && detected !== undefined) return yield* addToUserConfig(cwd, detected)
    yield* writeRepoConfig(cwd, force, detected)
  })
).pipe(Command.withDescription("Create orchestrator.yaml here from the defaults, or add this repository to your user config (--user)"))
