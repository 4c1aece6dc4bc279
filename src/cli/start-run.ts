/**
 * What `orch start` and `orch stop` do, loaded only when one of them runs (it brings the IPC client and the
 * supervisor's composition; every other command starts without them).
 */
import type * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { chooseProject } from "../config/project-choice.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { openOnThisMachine } from "../dashboard/open.ts"
import { pageUrl, sessionPath } from "../dashboard/urls.ts"
import { connectSupervisor, type Leftovers, removeLeftovers } from "../ipc/liveness.ts"
import { ProjectNotFound, ProjectNotGiven } from "../sessions/errors.ts"
import { withLock } from "../store/lock.ts"
import { dataDirProblem, storePaths } from "../store/paths.ts"
import { sayServedConfig } from "./acting-config.ts"
import { launchDetached, type Ready, type StartOutcome, takeReportPath, writeOutcome } from "./detach.ts"
import { describeFailure } from "./exit.ts"
import { joinSupervisor, supervise } from "./supervise.ts"

export { answered } from "../ipc/client.ts"
export { connectSupervisor } from "../ipc/liveness.ts"
export { unresponsive } from "../ipc/liveness.ts"
export { isProcessAlive } from "../store/process-liveness.ts"

const cliPath = () => process.argv[1] ?? "orch"

/** Prints where everything is, and opens the orchestrator's page (where a browser can be opened; it says so otherwise). */
const report = (ready: Ready, open: boolean) => {
  const orchestratorPage = pageUrl(ready.dashboardUrl, sessionPath(ready.orchestratorSessionId))
  return Console.log([
    ready.joined ? `joined the supervisor already running (pid ${ready.pid})` : `supervisor started (pid ${ready.pid})`,
    ...(ready.recovered ?? []).map((line) => `recovered: ${line}`),
    `orchestrator session ${ready.orchestratorSessionId} ${ready.reused ? "is already running" : "started"} for ${ready.project}`,
    `attach: orch attach ${ready.orchestratorSessionId}`,
    `dashboard: ${ready.dashboardUrl}`,
    `orchestrator page: ${orchestratorPage}`
  ].join("\n")).pipe(Effect.andThen(
    open
      ? openOnThisMachine(orchestratorPage).pipe(
        Effect.catch((error) =>
          Console.error(`orch: warning: could not open a browser (${error.reason}); open the orchestrator page above yourself, or pass --no-open`)
        )
      )
      : Effect.void
  ))
}

/**
 * The project must exist before anything starts (a supervisor would start, then fail to find it): the one named,
 * as it was named, or the config's only one.
 */
const projectToStart = (config: OrchestratorConfig, project: string | undefined) => {
  const choice = chooseProject(config.projects, project)
  const configPath = config.configPath !== undefined ? { configPath: config.configPath } : {}
  switch (choice._tag) {
    case "Chosen":
      return Effect.succeed(project ?? choice.key)
    case "Unknown":
      return Effect.fail(new ProjectNotFound({ project: choice.ref, known: Object.keys(config.projects), ...configPath }))
    case "NotGiven":
      return Effect.fail(new ProjectNotGiven({ command: "orch start", known: Object.keys(config.projects), ...configPath }))
  }
}

/**
 * The detached child's word to its parent (src/cli/detach.ts): Ready once, after the report is printed, or
 * Failed with the message this command is about to print. Outside a detached child, nothing.
 */
const parentReporter = Effect.fnUntraced(function*(path: string | undefined) {
  const sent = yield* Ref.make(false)
  const send = (outcome: StartOutcome) =>
    path === undefined ? Effect.void : Effect.flatMap(Ref.getAndSet(sent, true), (already) => (already ? Effect.void : writeOutcome(path, outcome)))
  return {
    ready: send,
    failed: (cause: Cause.Cause<unknown>) => {
      const failure = describeFailure(cause)
      // Written where it can be: if it cannot, the parent sees the child die and reads the same message from the log.
      return failure?.message === undefined ? Effect.void : send({ _tag: "Failed", message: failure.message, exitCode: failure.exitCode }).pipe(
        Effect.catch((error) => Effect.logWarning(`could not tell the waiting orch start why this one failed: ${error.message}`))
      )
    }
  }
})

/** orch cannot keep its state where it must. */
export class DataDirUnusable extends Schema.TaggedError<DataDirUnusable>()("DataDirUnusable", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return this.reason
  }
}

/**
 * `orch start [project] [--detach]`: join the supervisor that answers, or start one (here or in the background). No
 * project: the only one of the config (of the running supervisor's, when joining one).
 */
export const runStart = Effect.fn("cli.start.run")(function*(root: string, project: string | undefined, background: boolean, noOpen: boolean) {
  const reportPath = takeReportPath()
  const parent = yield* parentReporter(reportPath)
  const announce = (ready: Ready) => Effect.andThen(report(ready, !noOpen), parent.ready(ready))
  yield* Effect.scoped(Effect.gen(function*() {
    const found = yield* connectSupervisor(root)
    if (found._tag === "Running") {
      yield* sayServedConfig(found.info)
      return yield* announce(yield* joinSupervisor(found.client, found.info.pid, project))
    }
    // Not answering may mean starting: the supervisor lock (below, or in the detached child) waits that out.
    const unusable = dataDirProblem(root)
    if (unusable !== undefined) return yield* new DataDirUnusable({ reason: unusable })
    // Checked as `orch config validate` checks it: a supervisor never starts on a config whose plugins cannot be had.
    const { loadCheckedConfig } = yield* Effect.promise(() => import("../plugins/config-check.ts"))
    const { config } = yield* loadCheckedConfig()
    const chosen = yield* projectToStart(config, project)
    if (background) return yield* announce(yield* launchDetached(root, cliPath(), chosen))
    yield* supervise(root, config, chosen, cliPath(), announce, { detached: reportPath !== undefined })
  })).pipe(Effect.onError(parent.failed))
})

/**
 * A dead supervisor's files, removed under the supervisor lock (after asking once more, holding it); the pid it
 * had, or undefined when there was nothing to remove.
 */
export const clearAfterDead = (root: string, seen: Leftovers) =>
  seen.file === undefined && !seen.socket
    ? Effect.succeed(undefined)
    : withLock(storePaths(root).locks, "supervisor")(Effect.scoped(Effect.gen(function*() {
      const found = yield* connectSupervisor(root)
      if (found._tag !== "NotRunning") return undefined
      const { file, socket } = found.leftovers
      if (file === undefined && !socket) return undefined
      yield* removeLeftovers(root, found.leftovers)
      return file?.pid
    })))
