/**
 * Session records on disk: `sessions/<projectId>/<sessionId>/session.json`, written atomically. Session numbers
 * are reserved with an atomic `mkdir`, so any number of processes spawning at once get distinct ids.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { Host, type HostShape } from "../config/host.ts"
import { SessionRecord } from "../domain/session.ts"
import { atCrashPoint, crashPoint } from "./crash-points.ts"
import { errnoReason, SessionNotFound, StoreError } from "./errors.ts"
import { attempt, type StagedFile, stageFileAtomic, writeFileAtomic, type WriteOptions } from "./files.ts"
import { dataDir, type StorePaths, storePaths } from "./paths.ts"
import { compilePlainDecoder } from "./plain-decoder.ts"

const decodeWithSchema = Schema.decodeUnknownResult(Schema.fromJsonString(SessionRecord))
const decodePlain = compilePlainDecoder(SessionRecord)

/** A record of the current shape takes the compiled decoder (plain-decoder.ts); any other, the Schema's own, which explains a bad one. */
const decodeRecord = (text: string): Result.Result<SessionRecord, Schema.SchemaError> => {
  if (decodePlain !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return decodeWithSchema(text)
    }
    const decoded = decodePlain(parsed)
    if (decoded !== undefined) return Result.succeed(decoded)
  }
  return decodeWithSchema(text)
}

const listDirs = (path: string): Array<string> => {
  try {
    return readdirSync(path, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
  } catch {
    return []
  }
}

export interface SessionStoreShape {
  readonly paths: StorePaths
  /** Reserves the next free `<prefix>-<n>` of a project and returns it. */
  readonly reserve: (projectId: string, prefix: string) => Effect.Effect<string, StoreError>
  /**
   * Writes the record atomically; `durable: false` skips the fsync for a write a crash may lose (recovery redoes it),
   * `offThread: true` makes it in the thread pool (files.ts `WriteOptions`).
   */
  readonly write: (record: SessionRecord, options?: WriteOptions) => Effect.Effect<void, StoreError>
  /**
   * A durable write made ready (in the thread pool) while something else runs: its `commit` puts it in place (and
   * tells `changes`), `discard` drops it.
   */
  readonly stage: (record: SessionRecord) => Effect.Effect<StagedFile, StoreError>
  readonly read: (sessionId: string) => Effect.Effect<SessionRecord, SessionNotFound | StoreError>
  /** Every readable record; unreadable ones are reported in `problems`, never dropped silently. */
  readonly list: Effect.Effect<{ readonly records: ReadonlyArray<SessionRecord>; readonly problems: ReadonlyArray<string> }>
  /** Session directories with no record yet: reservations of spawns in progress, or of spawns that died. */
  readonly reservations: Effect.Effect<ReadonlyArray<{ readonly projectId: string; readonly sessionId: string }>>
  /** Removes a session's directory (an undone spawn). */
  readonly release: (projectId: string, sessionId: string) => Effect.Effect<void, StoreError>
  /** Removes an ended session's directory for good (`orch session rm`): its id is retired, never given to a later spawn. */
  readonly remove: (projectId: string, sessionId: string) => Effect.Effect<void, StoreError>
  /** Records written (or, as `record: null`, released) through this store from now on: the dashboard's live board. */
  readonly changes: Stream.Stream<SessionChange>
}

export interface SessionChange {
  readonly sessionId: string
  readonly record: SessionRecord | null
}

export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("orch/store/SessionStore") {
  static readonly make = (root: string, bus?: PubSub.PubSub<SessionChange>): SessionStoreShape => {
    const paths = storePaths(root)
    const publish = (change: SessionChange) => (bus === undefined ? Effect.void : Effect.asVoid(PubSub.publish(bus, change)))

    const readAt = (projectId: string, sessionId: string) => {
      const file = paths.record(projectId, sessionId)
      let text: string
      try {
        text = readFileSync(file, "utf8")
      } catch (cause) {
        // A name too long for the file system cannot be a session's.
        const code = (cause as NodeJS.ErrnoException).code
        return code === "ENOENT" || code === "ENAMETOOLONG"
          ? undefined
          : new StoreError({ path: file, reason: errnoReason(cause) })
      }
      const decoded = decodeRecord(text)
      return decoded._tag === "Success"
        ? decoded.success
        : new StoreError({ path: file, reason: `not a valid session record: ${decoded.failure.message.split("\n")[0]}` })
    }

    /** Ids of removed sessions, one a line, so that no later session takes one (its events stay its own). */
    const retiredFile = (projectId: string) => join(paths.project(projectId), "retired")
    const retired = (projectId: string): ReadonlyArray<string> => {
      try {
        return readFileSync(retiredFile(projectId), "utf8").split("\n").filter(Boolean)
      } catch {
        return []
      }
    }

    const reserve = Effect.fn("SessionStore.reserve")(function*(projectId: string, prefix: string) {
      const dir = paths.project(projectId)
      yield* attempt(dir, () => mkdirSync(dir, { recursive: true }))
      const pattern = new RegExp(`^${prefix.replace(/[-]/g, "\\-")}-(\\d+)$`)
      const taken = [...listDirs(dir), ...retired(projectId)]
      let next = Math.max(0, ...taken.map((name) => Number(pattern.exec(name)?.[1] ?? 0))) + 1
      for (;;) {
        const sessionId = `${prefix}-${next}`
        const created = yield* attempt(dir, () => {
          try {
            mkdirSync(paths.session(projectId, sessionId))
            crashPoint("reserve: after")
            return true
          } catch (cause) {
            if ((cause as NodeJS.ErrnoException).code === "EEXIST") return false
            throw cause
          }
        })
        if (created) return sessionId
        next++
      }
    })

    const read = Effect.fn("SessionStore.read")(function*(sessionId: string) {
      for (const projectId of listDirs(paths.sessions)) {
        const found = readAt(projectId, sessionId)
        if (found instanceof StoreError) return yield* found
        if (found !== undefined) return found
      }
      return yield* new SessionNotFound({ sessionId })
    })

    const list = Effect.sync(() => {
      const records: Array<SessionRecord> = []
      const problems: Array<string> = []
      for (const projectId of listDirs(paths.sessions)) {
        for (const sessionId of listDirs(paths.project(projectId))) {
          const found = readAt(projectId, sessionId)
          if (found instanceof StoreError) problems.push(found.message)
          else if (found !== undefined) records.push(found)
        }
      }
      return { records, problems }
    })

    const reservations = Effect.sync(() =>
      listDirs(paths.sessions).flatMap((projectId) =>
        listDirs(paths.project(projectId))
          .filter((sessionId) => !existsSync(paths.record(projectId, sessionId)))
          .map((sessionId) => ({ projectId, sessionId }))
      )
    )

    return {
      paths,
      reserve,
      write: (record, options) =>
        writeFileAtomic(paths.record(record.projectId, record.sessionId), `${JSON.stringify(record, null, 2)}\n`, options).pipe(
          Effect.andThen(publish({ sessionId: record.sessionId, record }))
        ),
      stage: (record) =>
        stageFileAtomic(paths.record(record.projectId, record.sessionId), `${JSON.stringify(record, null, 2)}\n`, { offThread: true }).pipe(
          Effect.map((staged) => ({ ...staged, commit: Effect.andThen(staged.commit, publish({ sessionId: record.sessionId, record })) }))
        ),
      read,
      list,
      reservations,
      release: (projectId, sessionId) =>
        atCrashPoint("release: before").pipe(
          Effect.andThen(attempt(paths.session(projectId, sessionId), () => rmSync(paths.session(projectId, sessionId), { recursive: true, force: true }))),
          Effect.andThen(atCrashPoint("release: after")),
          Effect.andThen(publish({ sessionId, record: null }))
        ),
      remove: (projectId, sessionId) =>
        atCrashPoint("remove: before").pipe(
          Effect.andThen(attempt(retiredFile(projectId), () => appendFileSync(retiredFile(projectId), `${sessionId}\n`))),
          Effect.andThen(attempt(paths.session(projectId, sessionId), () => rmSync(paths.session(projectId, sessionId), { recursive: true, force: true }))),
          Effect.andThen(atCrashPoint("remove: after")),
          Effect.andThen(publish({ sessionId, record: null }))
        ),
      changes: bus === undefined ? Stream.empty : Stream.fromPubSub(bus)
    }
  }

  /** The store in `~/.orchestrator` (or `ORCH_HOME`). */
  static readonly layer = Layer.effect(
    SessionStore,
    Effect.gen(function*() {
      const host: HostShape = yield* Host
      return SessionStore.make(dataDir(host), yield* PubSub.unbounded<SessionChange>())
    })
  )
}
