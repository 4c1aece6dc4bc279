/**
 * Conflict prediction, every CONFLICT_INTERVAL (the probe interval), in its own loop: for each watched project with
 * live workers on this machine (as their actors hold them: no record is read), the default branch is fetched from
 * origin when no fetch of it served in the last five minutes; then, when a ref file of theirs moved on disk
 * (`refsStamp`: no process at rest), their branch heads and the default branch's are read in one git process
 * (conflict-git.ts); only what changed since (rules/conflict-pairs.ts decides, keyed by heads) is read and merged
 * again. The predictions are written whole to conflicts.json (src/store/conflicts-file.ts) and their changes told
 * (conflict-notices.ts): the file first, with the change as `pending`, then the events and the reaction, then the
 * file without `pending`; so `orch status` never shows a prediction whose event is lost, and a crash in between
 * tells the rest at the next round, nothing twice. Workers on other hosts are left out: their branches are in their
 * host's repository, not this one. Nothing here runs on a command's path: `orch status` reads the file.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process"
import * as Stream from "effect/Stream"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import type { ProjectConfig } from "../src/config/schema.ts"
import type { ConflictPrediction } from "../src/domain/conflict.ts"
import { hostOf, type SessionRecord } from "../src/domain/session.ts"
import { fetchServes, lastFetchOf } from "../src/plugins/workspace/fetch-window.ts"
import { type ConflictsFile, readConflicts, writeConflicts } from "../src/store/conflicts-file.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { withLock } from "../src/store/lock.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { DEFAULT_BRANCH_FETCH_MS, fetchDefaultBranch, readProject, refsStamp } from "./conflict-git.ts"
import { tellChanges } from "./conflict-notices.ts"
import { PartsFailed } from "./loop-guard.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { PROBE_INTERVAL } from "./probe-cycle.ts"
import { changesBetween, type ConflictCache, emptyCache, predictionsOf, type ProjectHeads, pruneCache } from "./rules/conflict-pairs.ts"
import { SessionActors } from "./session-actors.ts"
import { WatchedProjects } from "./watched-projects.ts"

export const CONFLICT_INTERVAL = PROBE_INTERVAL

export interface ConflictWatchShape {
  /** One round; fails, after doing the rest, with the projects whose repository could not be read (their predictions stay). */
  readonly round: () => Effect.Effect<void, unknown>
}

export class ConflictWatch extends Context.Service<ConflictWatch, ConflictWatchShape>()("orch/actors/ConflictWatch") {
  static readonly layer = Layer.effect(
    ConflictWatch,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const projects = yield* WatchedProjects
      const events = yield* EventLog
      const configs = yield* ConfigSource
      const router = yield* NotifierRouter
      const actors = yield* SessionActors
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const root = store.paths.root
      /** What was read and merged, by heads; kept while the heads are. */
      let cache: ConflictCache = emptyCache
      /** Each project's heads as last read, with the stamp of its refs then: read again only when the stamp moves. */
      const lastRead = new Map<string, { readonly stamp: string; readonly heads: ProjectHeads }>()
      /** Projects a PR of which merged since their last fetch: the default branch moved on the repohost; fetched next round. */
      const merged = new Set<string>()
      const seenMerged = new Set<string>()
      yield* store.changes.pipe(
        Stream.runForEach(({ sessionId, record }) =>
          Effect.sync(() => {
            if (record?.pr?.state !== "merged" || seenMerged.has(sessionId)) return
            seenMerged.add(sessionId)
            merged.add(record.projectId)
          })
        ),
        Effect.forkScoped
      )

      /**
       * The default branch from origin, unless a fetch of it (anyone's) served within the last five minutes and no PR of
       * the project merged since (a merge moves it on the repohost: the train's, auto-merge's, a person's); under the
       * project's git lock, as a spawn's fetch is. A fetch that fails is logged: the round goes on with what is here.
       */
      const refreshDefaultBranch = Effect.fnUntraced(function*(project: ProjectConfig) {
        const fetched = lastFetchOf(project.path, project.defaultBranch)
        if (!merged.has(project.id) && fetchServes(fetched, yield* Clock.currentTimeMillis, DEFAULT_BRANCH_FETCH_MS)) return
        merged.delete(project.id)
        const warning = yield* fetchDefaultBranch(project.path, project.defaultBranch).pipe(
          withLock(store.paths.locks, `git-${project.id}`),
          Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner),
          Effect.catch((error) => Effect.succeed(error.message))
        )
        if (warning !== undefined) yield* Effect.logWarning(`conflict prediction: ${warning}; it compares with the default branch as last fetched`)
      })

      /** A project's heads, reading and merging only what changed (the cache follows); nothing when no ref moved. */
      const projectRound = (project: ProjectConfig, records: ReadonlyArray<SessionRecord>) => {
        const stamp = refsStamp(project.path, project.defaultBranch, records)
        const last = lastRead.get(project.id)
        if (stamp !== undefined && last?.stamp === stamp) return Effect.succeed(last.heads)
        return readProject(project, records, cache).pipe(
          Effect.map((read) => {
            cache = read.cache
            if (stamp !== undefined) lastRead.set(project.id, { stamp, heads: read.heads })
            return read.heads
          }),
          Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner)
        )
      }

      // Its rename is a crash point (`rename conflicts.json`), as each event's append is.
      const write = (file: ConflictsFile) => writeConflicts(root, file)

      const round = Effect.fn("ConflictWatch.round")(function*() {
        const config = yield* configs.current
        // Telling a change needs every record (a session that ended is told as such): read only then.
        const told = Effect.map(store.list, ({ records }) => {
          const byId = new Map(records.map((r) => [r.sessionId, r]))
          return { config, events, router, slotsOf: projects.get, recordOf: (id: string) => byId.get(id) }
        })
        // Read each round (a few kilobytes): a round a crash cut short left its `pending` there.
        const previous = yield* readConflicts(root)
        if (previous.pending !== undefined) {
          // A round a crash cut short: what it had not told yet is told now.
          yield* tellChanges(yield* told, previous.pending)
          const { pending: _, ...done } = previous
          yield* write(done)
        }
        const before = previous.predictions
        // A session whose PR merged or closed has nothing left to merge (a squash merge would read as an overlap with main).
        const workers = actors.entries().map((entry) => entry.record).filter((r) =>
          projects.isLive(r) && r.role === undefined && hostOf(r) === "local" && r.pr?.state !== "merged" && r.pr?.state !== "closed"
        )
        const failed: Array<{ name: string; reason: string }> = []
        const allHeads: Array<ProjectHeads> = []
        const next: Array<ConflictPrediction> = []
        for (const slots of projects.all()) {
          const own = workers.filter((r) => r.projectId === slots.project.id)
          // A project whose directory holds no git repository has no branches here to compare (a workspace plugin of
          // its own, or a test's fake): nothing to predict, and nothing wrong to report.
          if (own.length === 0 || !existsSync(join(slots.project.path, ".git"))) continue
          yield* refreshDefaultBranch(slots.project)
          const result = yield* Effect.result(projectRound(slots.project, own))
          if (result._tag === "Failure") {
            failed.push({ name: slots.project.id, reason: result.failure.message })
            next.push(...before.filter((p) => p.projectId === slots.project.id))
            continue
          }
          allHeads.push(result.success)
          next.push(...predictionsOf(result.success, cache))
        }
        cache = pruneCache(allHeads, cache)
        const changes = changesBetween(before, next, new Set(workers.map((r) => r.sessionId)))
        const updatedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        if (changes.predicted.length > 0 || changes.cleared.length > 0) {
          const pending = { logOffset: yield* events.size, predicted: changes.predicted, cleared: changes.cleared }
          yield* write({ updatedAt, predictions: next, pending })
          yield* tellChanges(yield* told, pending)
          yield* write({ updatedAt, predictions: next })
        } else if (JSON.stringify(next) !== JSON.stringify(before)) {
          // Heads moved without anything to tell (the default branch moved on): the file follows them.
          yield* write({ updatedAt, predictions: next })
        }
        if (failed.length > 0) return yield* new PartsFailed({ parts: failed })
      })

      return ConflictWatch.of({ round })
    })
  )
}
