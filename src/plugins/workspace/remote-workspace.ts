/**
 * The workspace of a session on a host: the host gets the code from the project's `origin` as any machine would
 * (a clone kept at `<dataDir>/repos/<project>` there, fetched at each spawn), and the session works in a worktree of
 * it at `<dataDir>/worktrees/<project>/<session>`. No local path is assumed to exist on the host: `symlinks` point
 * into the host's clone, `postCreate` runs in the worktree there. Unsaved work is committed on the host and pushed
 * to `origin` as the rescue ref before the worktree goes. Each operation is one script, one round trip.
 */
import * as Effect from "effect/Effect"
import { LOCAL } from "../../config/host-spec.ts"
import type { ProjectConfig } from "../../config/schema.ts"
import type { HostError } from "../../hosts/errors.ts"
import { dataDirWord } from "../../hosts/headroom.ts"
import type { HostConnectionsShape } from "../../hosts/HostConnections.ts"
import { shellQuote } from "../../process/shell-quote.ts"
import { makeRemoteFiles, parseDataDir } from "./remote-files.ts"
import { type CreatedWorkspace, lookThenCreate, WorkspaceError, type WorkspaceShape, type WorkspaceSpec } from "./Workspace.ts"

const PLUGIN = "worktree"
/** A script's own "cannot go on" exit, its reason on stderr. */
const REFUSED = 91
/** The exit of a create script told to make a new branch that the host's clone or origin already has. */
export const BRANCH_TAKEN = 93
const IDENTITY = "-c user.name=orch -c user.email=orch@localhost"

const q = shellQuote

/** The project's `origin`, as the local checkout names it: where a host gets the code from. */
export const originOf = (connections: HostConnectionsShape, project: ProjectConfig) =>
  connections.run(LOCAL, `git -C ${q(project.path)} remote get-url origin\n`).pipe(
    Effect.mapError((error) => error.message),
    Effect.flatMap((result) =>
      result.exitCode === 0 && result.stdout.trim() !== ""
        ? Effect.succeed(result.stdout.trim())
        : Effect.fail(
          `${project.path} has no remote named origin, and a session on another host gets the code from origin; add one (git remote add origin URL)`
        )
    ),
    Effect.mapError((reason) => new WorkspaceError({ plugin: PLUGIN, operation: "finding origin", reason }))
  )

/** The lines that set $repo (the host's clone of the project) from the data dir. */
const repoLines = (dataDir: string, project: ProjectConfig) => `d=${dataDirWord(dataDir)}\nrepo="$d"/repos/${q(project.id)}\n`
const fail = (reason: string) => `{ echo ${q(reason)} >&2; exit ${REFUSED}; }`
/** The shell function `says` prints what git said that matters: its "fatal:" line, else its last line. */
const GIT_SAYS = `says() { m=$(printf '%s\n' "$1" | grep -m 1 '^fatal:'); [ -n "$m" ] || m=$(printf '%s\n' "$1" | grep . | tail -n 1); printf '%s' "$m"; }
`
/** What to do about what git said, when orch knows: a repository another user owns needs safe.directory on the host. */
export const withGitHint = (reason: string): string => {
  const owned = /detected dubious ownership in repository at '([^']+)'/.exec(reason)?.[1]
  return owned === undefined ? reason : `${reason}; on the host, as its user: git config --global --add safe.directory ${owned}`
}

/** Stops with `reason` and what git said of it ($out). */
const failSaying = (reason: string) => `{ echo ${q(`${reason}: `)}"$(says "$out")" >&2; exit ${REFUSED}; }`

/**
 * The lines that take, and give back, the host's lock on the project's clone: spawns from several orch processes
 * (or one batch) fetch and add worktrees one at a time. flock where the host has it (the lock goes with the
 * process); else a directory holding the holder's pid, taken over when that process is gone.
 */
export const lockLines = (project: ProjectConfig) => {
  const lock = `"$d"/repos/.${q(project.id)}.lock`
  return {
    take: `out=$(mkdir -p "$d"/repos 2>&1) || { echo "orch's data dir on the host cannot be used: $out" >&2; exit ${REFUSED}; }
if command -v flock >/dev/null 2>&1; then exec 9>${lock}; flock -w 300 9 || ${fail("another spawn held the host's clone for 5 minutes")}
else waited=0; until mkdir ${lock}.d 2>/dev/null; do
  holder=$(cat ${lock}.d/pid 2>/dev/null); if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then rm -rf ${lock}.d; continue; fi
  waited=$((waited + 1)); [ "$waited" -gt 1500 ] && ${fail("another spawn held the host's clone for 5 minutes")}; sleep 0.2
done; echo $$ > ${lock}.d/pid; trap 'rm -rf ${lock}.d' EXIT; fi
`,
    give: `exec 9>&-; rm -rf ${lock}.d 2>/dev/null; trap - EXIT
`
  }
}

/**
 * Makes the worktree, printing "@path <absolute path>", "@created 0|1" and "@data <the data dir's absolute path>".
 * With `newBranch` (a task's branch, chosen as one nobody has) it exits BRANCH_TAKEN, making nothing, when the
 * host's clone or origin has the branch after all.
 */
export const createScript = (dataDir: string, spec: WorkspaceSpec, origin: string, options: { readonly newBranch?: boolean } = {}): string => {
  const { project, sessionId, branch } = spec
  const b = q(branch)
  const links = project.symlinks.map((link) =>
    `if [ -e "$repo"/${q(link)} ]; then mkdir -p "$(dirname ${q(link)})" && ln -sfn "$repo"/${q(link)} ${q(link)} || undo ${
      q(`the symlink ${link} could not be made`)
    }; fi\n`
  ).join("")
  const post = project.postCreate.map((command) => `sh -c ${q(command)} >&2 || undo ${q(`postCreate \`${command}\` failed`)}\n`).join("")
  const lock = lockLines(project)
  return `${repoLines(dataDir, project)}wt="$d"/worktrees/${q(project.id)}/${q(sessionId)}
command -v git >/dev/null 2>&1 || ${fail("git is not installed (not found on PATH)")}
${GIT_SAYS}${lock.take}if [ -d "$repo/.git" ]; then git -C "$repo" remote set-url origin ${q(origin)}; out=$(git -C "$repo" fetch -q origin 2>&1) || ${
    failSaying(`git fetch ${origin} failed in the host's clone`)
  }
else mkdir -p "$d"/repos && out=$(git clone -q ${q(origin)} "$repo" 2>&1) || ${failSaying(`git clone ${origin} failed`)}; fi
${
    options.newBranch === true
      ? `if git -C "$repo" show-ref -q --verify refs/heads/${b} || git -C "$repo" show-ref -q --verify refs/remotes/origin/${b}; then echo ${
        q(`the branch ${branch} exists already`)
      } >&2; exit ${BRANCH_TAKEN}; fi
`
      : ""
  }mkdir -p "$(dirname "$wt")" || ${fail("the worktrees directory cannot be made")}
if git -C "$repo" show-ref -q --verify refs/heads/${b}; then created=0; set -- "$wt" ${b}
elif git -C "$repo" show-ref -q --verify refs/remotes/origin/${b}; then created=0; set -- -b ${b} "$wt" origin/${b}
else created=1; set -- -b ${b} "$wt" origin/${q(project.defaultBranch)}; fi
out=$(git -C "$repo" worktree add -q "$@" 2>&1) || ${failSaying(`git worktree add for ${branch} failed`)}
${lock.give}undo() { echo "$1" >&2; git -C "$repo" worktree remove --force "$wt"; [ "$created" = 1 ] && git -C "$repo" branch -q -D ${b}; exit ${REFUSED}; }
cd "$wt" || undo "the worktree is not there"
${links}${post}echo "@path $(pwd -P)"
echo "@created $created"
echo "@data $(cd "$d" && pwd -P)"
`
}

/** What a create script printed: the worktree's absolute path and whether the branch was made. */
export const parseCreated = (stdout: string): { readonly path: string; readonly createdBranch: boolean } | undefined => {
  const path = /^@path (.+)$/m.exec(stdout)?.[1]
  const created = /^@created ([01])$/m.exec(stdout)?.[1]
  return path === undefined || created === undefined ? undefined : { path, createdBranch: created === "1" }
}

export const makeRemoteWorkspace = (connections: HostConnectionsShape, host: string, dataDir = "~/.orchestrator"): WorkspaceShape => {
  const failed = (operation: string) => (error: HostError | string) =>
    new WorkspaceError({ plugin: PLUGIN, operation, reason: `on host ${host}: ${withGitHint(typeof error === "string" ? error : error.message)}` })
  const script = (operation: string, text: string) =>
    connections.run(host, text, { timeout: "5 minutes" }).pipe(
      Effect.mapError(failed(operation)),
      Effect.flatMap((result) =>
        result.exitCode === 0
          ? Effect.succeed(result.stdout)
          : Effect.fail(failed(operation)(result.stderr.trim().split("\n").at(-1) || `exit ${result.exitCode}`))
      )
    )

  const files = makeRemoteFiles(connections, host, dataDir)
  const create = Effect.fn("RemoteWorkspace.create")(function*(spec: WorkspaceSpec) {
    const origin = yield* originOf(connections, spec.project)
    const out = yield* script("create", createScript(dataDir, spec, origin))
    const made = parseCreated(out)
    if (made === undefined) return yield* failed("create")("the host's answer named no worktree")
    // The spawn asks for the data dir next: the answer names it, so that asks no round trip more.
    const data = parseDataDir(out)
    if (data !== undefined) files.learn(data)
    return { path: made.path, branch: spec.branch, createdBranch: made.createdBranch, warnings: [] } satisfies CreatedWorkspace
  })

  const exists = (path: string) =>
    // A host that cannot say is taken as having it: removal then tries (and says why it cannot), work is never dropped.
    script("exists", `if [ -d ${q(path)} ]; then echo yes; else echo no; fi\n`).pipe(
      Effect.map((out) => out.trim() !== "no"),
      Effect.orElseSucceed(() => true)
    )

  const hasBranch = Effect.fn("RemoteWorkspace.hasBranch")(function*(project: ProjectConfig, branch: string) {
    const origin = yield* originOf(connections, project)
    const out = yield* script(
      "hasBranch",
      `${repoLines(dataDir, project)}if [ -d "$repo/.git" ] && git -C "$repo" show-ref -q --verify refs/heads/${q(branch)}; then echo yes
elif git ls-remote --exit-code --heads ${q(origin)} ${q(branch)} >/dev/null 2>&1; then echo yes; else echo no; fi\n`
    )
    return out.trim() === "yes"
  })

  const unsavedWork = Effect.fn("RemoteWorkspace.unsavedWork")(function*(_project: ProjectConfig, path: string) {
    const out = yield* script(
      "unsavedWork",
      `cd ${q(path)} || exit ${REFUSED}\necho "$(git status --porcelain | wc -l) $(git rev-list --count HEAD --not --remotes)"\n`
    )
    const [uncommitted, unpushed] = out.trim().split(/\s+/).map(Number)
    return { uncommitted: uncommitted ?? 0, unpushed: unpushed ?? 0 }
  })

  /** Commits everything (in an index of its own) on the host and pushes it to `ref` on origin, keeping what it held. */
  const rescue = Effect.fn("RemoteWorkspace.rescue")(function*(project: ProjectConfig, path: string, ref: string, message: string) {
    // Saved where the project's origin is now, as the local checkout names it (it may have moved since the spawn).
    const origin = yield* originOf(connections, project).pipe(Effect.orElseSucceed(() => undefined))
    const out = yield* script(
      "rescue",
      `cd ${q(path)} || exit ${REFUSED}
${
        origin !== undefined ?
          `git remote set-url origin ${q(origin)} || ${fail("the host's clone cannot be pointed at origin")}
` :
          ""
      }export GIT_INDEX_FILE="$(git rev-parse --absolute-git-dir)/orch-rescue-index"
rm -f "$GIT_INDEX_FILE"; git read-tree HEAD && git add -A && tree=$(git write-tree) || ${fail("the work could not be staged")}
rm -f "$GIT_INDEX_FILE"; unset GIT_INDEX_FILE
earlier=""; if git fetch -q origin ${q(`+${ref}:${ref}`)} 2>/dev/null; then earlier="-p $(git rev-parse ${q(ref)})"; fi
commit=$(git ${IDENTITY} commit-tree "$tree" -p HEAD $earlier -m ${q(message)}) || ${fail("the rescue commit could not be made")}
pushed=$(git push -q origin "$commit":${
        q(ref)
      } 2>&1) || { echo "pushing ${ref} to origin failed ($(printf '%s\n' "$pushed" | sed -n 's/^ *//; /./p' | head -n 3 | tr '\n' ' ' | cut -c1-300)); the worktree is kept" >&2; exit ${REFUSED}; }
echo "$commit"\n`
    )
    return out.trim()
  })

  const destroy = Effect.fn("RemoteWorkspace.destroy")(
    function*(project: ProjectConfig, path: string, options: { readonly branch: string; readonly deleteBranch: boolean }) {
      yield* script(
        "destroy",
        `${repoLines(dataDir, project)}${lockLines(project).take}if [ -d ${q(path)} ]; then git -C "$repo" worktree remove --force ${q(path)} || ${
          fail("git worktree remove failed")
        }; fi
git -C "$repo" worktree prune
${options.deleteBranch ? `git -C "$repo" branch -q -D ${q(options.branch)} 2>/dev/null || true\n` : ""}`
      )
    }
  )

  return { name: PLUGIN, files, create: lookThenCreate(hasBranch, create), exists, hasBranch, unsavedWork, rescue, destroy }
}
