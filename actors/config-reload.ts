/**
 * The supervisor follows its config file. A burst of changes (an editor's save is several writes, or a write
 * and a rename) settles for RELOAD_SETTLE; then the file is loaded and checked as `orch config validate` does.
 *
 * - Valid: the plugins of added and changed projects and the notifiers are made first; if one cannot be, the
 *   config is rejected as below and nothing changed. Otherwise it is put in force at once: the next decision of
 *   every actor, procedure, poll and notification uses it. No session or actor is restarted. Sessions of
 *   removed projects keep running, unwatched; those of added projects get actors (`session.adopted`, saying a
 *   reload did it). Settings that cannot change while the supervisor runs (its listening addresses) keep their
 *   running values and are named as waiting for a restart. One `config.applied` event says what changed.
 * - Invalid: the supervisor keeps the config it runs on; a `config.rejected` event, a `warning` notification
 *   (the hosted inbox by default: nothing is at risk, the edit just did not take) and a line in `orch status`
 *   until a valid one is applied. The same problem again is not told twice.
 *
 * How it stands is kept in `config-state.json` (src/store/config-state.ts) for `orch status`. Failures of the
 * reload itself (the event log or the state file cannot be written) and a broken watch are the supervisor's
 * loops' failures (loop-guard.ts): logged, recorded as `supervisor.error`, the watch set up again with backoff.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { type ConfigChange, configChange, describeChange } from "../src/config/change.ts"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { configProblem } from "../src/config/problem.ts"
import type { OrchestratorConfig } from "../src/config/schema.ts"
import type { ConfigWatchFailed } from "../src/config/watch.ts"
import { newNotification } from "../src/domain/notification.ts"
import { loadCheckedConfig } from "../src/plugins/config-check.ts"
import { buildNotifiers } from "../src/plugins/notifier/registry.ts"
import { type ConfigState, removeConfigState, writeConfigState } from "../src/store/config-state.ts"
import { EventLog } from "../src/store/EventLog.ts"
import type { InboxShape } from "../src/store/Inbox.ts"
import { Admission } from "./admission.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { ProjectReload } from "./project-reload.ts"
import { DEFAULT_LOOP_POLICY } from "./rules/loop-health.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"

/** How long the file must stay quiet after a change before it is read. */
export const RELOAD_SETTLE = "300 millis"
/** After the watch broke (or could not be set up): when to try again first (then less often, loop-health.ts). */
export const REWATCH_AFTER = "5 seconds"

export interface ConfigReloadOptions {
  /** The data directory (for `config-state.json`). */
  readonly root: string
  /** The config file the supervisor loaded. */
  readonly file: string
  /** The hosted inbox, for the notifiers of a new config. */
  readonly inbox: InboxShape
  /** An element each time the file may have changed (watch.ts); a failure is a broken watch, set up again. */
  readonly changes: Stream.Stream<void, ConfigWatchFailed>
}

const sameList = (a: ReadonlyArray<string> | undefined, b: ReadonlyArray<string>) => (a ?? []).length === b.length && b.every((item, i) => a?.[i] === item)

/** Follows the config file for as long as the calling scope lives. */
export const followConfigFile = Effect.fnUntraced(function*(options: ConfigReloadOptions) {
  const configs = yield* ConfigSource
  const projects = yield* ProjectReload
  const admission = yield* Admission
  const { guard } = yield* SupervisorLoops
  const router = yield* NotifierRouter
  const events = yield* EventLog
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const { file, root } = options
  const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

  const state = yield* Ref.make<ConfigState>({ pid: process.pid, file, appliedAt: yield* isoNow })
  const save = (next: ConfigState) => Effect.andThen(Ref.set(state, next), writeConfigState(root, next))
  yield* Effect.acquireRelease(Effect.flatMap(Ref.get(state), save), () => Effect.sync(() => removeConfigState(root, process.pid)))

  const reject = Effect.fnUntraced(function*(error: { readonly _tag: string; readonly message: string }) {
    const { problem, location, problems } = configProblem(error)
    const before = yield* Ref.get(state)
    if (before.rejected?.problem === problem && before.rejected.location === location) return
    yield* events.append({
      type: "config.rejected",
      message: location !== undefined ? `${problem} (${location})` : problem,
      data: { file, problems, ...(location !== undefined ? { location } : {}) }
    })
    yield* router.notify(
      yield* newNotification({
        type: "config.rejected",
        priority: "warning",
        title: `config not applied: ${file}`,
        message: `${problem}${
          location !== undefined ? ` (${location})` : ""
        }. The supervisor keeps running on the config it had; the file is applied once it is valid.`
      })
    )
    yield* save({ ...before, rejected: { since: before.rejected?.since ?? (yield* isoNow), problem, ...(location !== undefined ? { location } : {}) } })
  })

  /** Puts the change in force; answers the sessions it stopped watching and those it started to. */
  const putInForce = Effect.fnUntraced(function*(change: ConfigChange) {
    const notifiers = yield* buildNotifiers(change.next, options.inbox).pipe(Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner))
    const commit = yield* projects.prepare(change)
    const unwatched = yield* Effect.andThen(router.reconfigure(notifiers, change.next.notificationRouting), commit).pipe(Effect.uninterruptible)
    const adopted = yield* projects.adoptProjects(change.added)
    // A changed project (or changed hosts) may have fixed what held its queued work back: tried again now.
    const everyProject = change.settings.some((setting) => setting === "hosts" || setting === "defaults" || setting === "plugins")
    yield* admission.retryHeld(everyProject ? Object.values(change.next.projects).map((p) => p.id) : change.changed)
    return { unwatched, adopted }
  })

  const apply = Effect.fnUntraced(function*(candidate: OrchestratorConfig) {
    const change = configChange(yield* configs.current, candidate)
    const before = yield* Ref.get(state)
    const applies = change.added.length + change.removed.length + change.changed.length + change.settings.length > 0
    const waitsNow = !sameList(before.restartNeeded?.settings, change.restartNeeded)
    if (!applies && !waitsNow && before.rejected === undefined) return
    const { unwatched, adopted } = yield* putInForce(change)
    for (const record of adopted) {
      yield* events.append({
        type: "session.adopted",
        sessionId: record.sessionId,
        projectId: record.projectId,
        issueId: record.issueId,
        message: "a config reload added its project",
        data: { reload: true }
      })
    }
    const unwatchedNote = unwatched.length > 0
      ? `; ${unwatched.length} session(s) of removed projects keep running, unwatched: ${unwatched.map((r) => r.sessionId).join(", ")}`
      : ""
    yield* events.append({
      type: "config.applied",
      message: `${before.rejected !== undefined ? "valid again: " : ""}${describeChange(change)}${unwatchedNote}`,
      data: {
        file,
        added: change.added,
        removed: change.removed,
        changed: change.changed,
        settings: change.settings,
        restartNeeded: change.restartNeeded,
        unwatched: unwatched.map((r) => r.sessionId),
        adopted: adopted.map((r) => r.sessionId)
      }
    })
    const now = yield* isoNow
    const { rejected: _, restartNeeded: __, ...rest } = before
    yield* save({
      ...rest,
      appliedAt: now,
      ...(change.restartNeeded.length > 0
        ? { restartNeeded: { since: waitsNow ? now : before.restartNeeded!.since, settings: change.restartNeeded } }
        : {})
    })
  })

  /** Loads the file and applies it, or rejects it. */
  const reload = Effect.fn("ConfigReload.reload")(function*() {
    const before = yield* Ref.get(state)
    if (before.unwatched !== undefined) {
      const { unwatched: _, ...watched } = before
      yield* save(watched)
      yield* Effect.logInfo(`watching ${file} for changes again`)
    }
    const loaded = yield* Effect.result(loadCheckedConfig(file))
    if (loaded._tag === "Failure") return yield* reject(loaded.failure)
    yield* apply(loaded.success.config).pipe(
      Effect.catchTags({
        UnknownPlugin: reject,
        PluginLoadError: reject,
        PluginConfigError: reject,
        NotifierConfigError: reject
      })
    )
  })

  const watchBroke = Effect.fnUntraced(function*(error: ConfigWatchFailed) {
    yield* Effect.logWarning(`${error.message}; edits to it are not seen; trying again in ${REWATCH_AFTER}`)
    const before = yield* Ref.get(state)
    if (before.unwatched === undefined) yield* save({ ...before, unwatched: { since: yield* isoNow, reason: error.reason } })
  })

  const reloads = guard("config reload")
  const rewatchMs = Duration.toMillis(REWATCH_AFTER)
  const watching = guard("config watch", { ...DEFAULT_LOOP_POLICY, baseMs: rewatchMs })
  yield* options.changes.pipe(
    Stream.debounce(RELOAD_SETTLE),
    Stream.runForEach(() => reloads.attempt(reload(), `it is loaded again at the next change of ${file}`)),
    Effect.tapError(watchBroke),
    (watch) => watching.forever(watch, Effect.succeed(rewatchMs)),
    Effect.forkScoped
  )
})
