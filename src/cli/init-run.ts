/**
 * What `orch init [--force] [--user]` does (its command is in init.ts, so the command tree loads none of this): writes a commented orchestrator.yaml here, with a project for this git repository;
 * or, with `--user` (asked in a terminal), adds the repository to the user-level config instead, found from any
 * directory (see src/config/user-config.ts). It says what a new file here shadows, and does not write one over a
 * config found from here that already has the repository unless asked to (`--force`, or yes in a terminal).
 */
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
import { addProjectToConfigText, keyOfRepository, tildePath, userConfigFile } from "../config/user-config.ts"
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
    // No git, or no repository here: there is nothing to detect (and init says so).
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

/** The project as a report names it. */
const describeProject = (project: InitProject) => `project "${project.key}" (${project.repo})`

/** For a repository whose origin is not on GitHub: what that means, to end a report with. */
const localNote = (project: InitProject, localReason: string | undefined) =>
  localReason === undefined
    ? ""
    : `; ${localReason}: added with tracker: none and scm: none, so spawns look nothing up (use orch spawn ${project.key} --task "…")`

/** The answer to "user config or this repository?": yes (the default) is the user config. Pure. */
export const wantsUserConfig = (answer: string): boolean | undefined => {
  const word = answer.trim().toLowerCase()
  if (word === "" || word === "y" || word === "yes" || word === "u" || word === "user") return true
  if (word === "n" || word === "no" || word === "r" || word === "repo" || word === "here") return false
  return undefined
}

/** The answer to "write it anyway?": no (the default) keeps things as they are. Pure. */
export const wantsAnyway = (answer: string): boolean | undefined => {
  const word = answer.trim().toLowerCase()
  if (word === "" || word === "n" || word === "no") return false
  if (word === "y" || word === "yes") return true
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

const askUntil = Effect.fnUntraced(function*(question: string, read: (answer: string) => boolean | undefined) {
  for (;;) {
    const answer = read(yield* ask(question))
    if (answer !== undefined) return answer
  }
})

const askWhere = (key: string, file: string) =>
  askUntil(
    `Add "${key}" to your user config ${file} (one file for all your repositories, found from any directory) instead of writing orchestrator.yaml here? [Y/n] `,
    wantsUserConfig
  )

type Detected = { readonly project: InitProject; readonly localReason: string | undefined }

const interactive = () => process.stdin.isTTY === true && process.stdout.isTTY === true

/** A config file's text; undefined when it cannot be read (loading it would say why). */
const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/**
 * The config a new orchestrator.yaml here would shadow: the one the search finds from here now (not counting
 * ORCH_CONFIG_PATH, nor the file about to be overwritten), and the key it has this repository under, if it has it.
 */
const shadowed = Effect.fnUntraced(function*(target: string, repository: string) {
  const { env, homeDir, cwd } = yield* Host
  const found = searchPlaces({ env: { ...env, ORCH_CONFIG_PATH: undefined }, homeDir, cwd }).find((place) => place !== target && isFile(place))
  if (found === undefined) return undefined
  const text = readText(found)
  return { file: found, key: text === undefined ? undefined : keyOfRepository(text, found, repository, homeDir) }
})

const writeRepoConfig = Effect.fnUntraced(function*(cwd: string, force: boolean, detected: Detected) {
  const { homeDir, env } = yield* Host
  const file = join(cwd, "orchestrator.yaml")
  if (existsSync(file) && !force) return yield* new ConfigExistsError({ file })
  const shadow = yield* shadowed(file, detected.project.path)
  // The repository is in a config found from here already: a file here would quietly take over from it.
  if (shadow?.key !== undefined && !force) {
    const why = `${tildePath(shadow.file, homeDir)} already has this repository, as project "${shadow.key}", and an orchestrator.yaml here would be found ` +
      `before it from this repository (while a supervisor started on it keeps it)`
    if (!interactive()) {
      return yield* new InitRefused({ reason: `${why}; nothing was written: edit that file, or run orch init --force to write one here anyway`, exitCode: 1 })
    }
    if (!(yield* askUntil(`${why}. Write orchestrator.yaml here anyway? [y/N] `, wantsAnyway))) {
      return yield* Console.log(`Nothing was written; ${tildePath(shadow.file, homeDir)} has this repository as project "${shadow.key}"`)
    }
  }
  writeFileSync(file, renderInitConfig(yield* getDefaultConfig(), detected.project))
  yield* Console.log(`Wrote ${file} with ${describeProject(detected.project)}${localNote(detected.project, detected.localReason)}`)
  if (shadow !== undefined) {
    yield* Console.log(
      `Note: commands run in this repository now use ${file}, not ${tildePath(shadow.file, homeDir)}, which was found from here before${
        shadow.key !== undefined ? ` (it still has this repository, as project "${shadow.key}")` : ""
      }`
    )
  }
  const pinned = env.ORCH_CONFIG_PATH
  if (pinned !== undefined && pinned !== "") {
    yield* Console.log(`Note: ORCH_CONFIG_PATH is set, so orch uses ${pinned}, not this file, until it is unset`)
  }
})

const addToUserConfig = Effect.fnUntraced(function*(cwd: string, detected: Detected) {
  const { homeDir, env } = yield* Host
  const file = userConfigFile(homeDir, isFile)
  const { project, localReason } = detected
  if (!isFile(file)) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, renderInitConfig(yield* getDefaultConfig(), { ...project, path: tildePath(project.path, homeDir) }))
    yield* Console.log(`Wrote your user config ${file} (found from any directory) with ${describeProject(project)}${localNote(project, localReason)}`)
  } else {
    const text = readText(file)
    if (text === undefined) {
      return yield* new InitRefused({ reason: `${file} cannot be read; check its permissions, then run orch init --user again`, exitCode: 1 })
    }
    const result = addProjectToConfigText(text, file, project, homeDir)
    if (result._tag === "AlreadyThere") {
      return yield* Console.log(`${file} already has this repository, as project "${result.key}"; nothing was changed`)
    }
    if (result._tag === "Refused") {
      const renamed = join(dirname(project.path), `${basename(project.path)}-2`)
      const advice = result.reason.includes("directory name")
        ? `; to add this repository, give its directory another name (mv ${project.path} ${renamed}) and run orch init --user in it again`
        : "; fix the file, then run orch init --user again"
      return yield* new InitRefused({ reason: `${file} was left as it was: ${result.reason}${advice}`, exitCode: 1 })
    }
    const added = { ...project, key: result.key }
    // The merged file must still be a valid config (no duplicate session prefix, …) before it replaces the user's.
    yield* parseConfigText(file, result.text).pipe(
      Effect.flatMap(({ raw, locate }) => validateConfig(raw, { configPath: file, locate })),
      Effect.mapError((error) =>
        new InitRefused({ reason: `${file} was left as it was: with "${added.key}" added it would not load: ${error.message.split("\n")[0]}`, exitCode: 1 })
      )
    )
    writeFileSync(file, result.text)
    const underAnother = added.key !== project.key ? ` (under "${added.key}": "${project.key}" is another repository's)` : ""
    yield* Console.log(
      `Added ${describeProject(added)} to your user config ${file}${underAnother}, keeping everything else in it${localNote(added, localReason)}`
    )
  }
  const first = searchPlaces({ env: { ...env, ORCH_CONFIG_PATH: undefined }, homeDir, cwd }).find(isFile)
  if (first !== undefined && first !== file) yield* Console.log(`Note: from here ${first} is found first, so commands run here use it and not the user config`)
})

export const runInit = Effect.fn("cli.init")(function*({ force, user }: { readonly force: boolean; readonly user: boolean }) {
  const { cwd, homeDir } = yield* Host
  const detected = yield* detectProject(cwd)
  if (detected === undefined) {
    return yield* new InitRefused({
      reason:
        `${cwd} is not in a git repository, and orch init writes a project for the repository it runs in; run it inside one (git init first for a new one)`,
      exitCode: 1
    })
  }
  if (user) return yield* addToUserConfig(cwd, detected)
  // A repository the user config has already: no question about where to add it.
  const userFile = userConfigFile(homeDir, isFile)
  const userText = readText(userFile)
  const inUserConfig = userText !== undefined && keyOfRepository(userText, userFile, detected.project.path, homeDir) !== undefined
  if (!inUserConfig && interactive() && (yield* askWhere(detected.project.key, tildePath(userFile, homeDir)))) {
    return yield* addToUserConfig(cwd, detected)
  }
  yield* writeRepoConfig(cwd, force, detected)
})
