/**
 * The work queue on disk: `<dataDir>/queue.json`, rewritten atomically (files.ts) under the `queue` lock
 * (lock.ts), so concurrent CLI processes and the supervisor never lose each other's entries and a `kill -9`
 * leaves the old queue or the new one. Read with a Schema; a file that does not decode is an error, never an
 * empty queue.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Host, type HostShape } from "../config/host.ts"
import { type Positioned, type QueueEntry, QueueFile, queueOrder } from "../domain/queue.ts"
import { errnoReason, StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { type LockTimeout, withLock } from "./lock.ts"
import { dataDir, storePaths } from "./paths.ts"

const decodeQueue = Schema.decodeUnknownResult(Schema.fromJsonString(QueueFile))
const EMPTY: QueueFile = { next: 1, entries: [] }

/** What to queue: an issue (queued by intake, or by a person), or a task (its text). */
export type QueueTarget = { readonly issue: string; readonly by?: "intake"; readonly title?: string } | { readonly task: string }

export interface Added {
  readonly added: ReadonlyArray<Positioned>
  /** Issues that were queued already (for the same project): left where they were. */
  readonly already: ReadonlyArray<Positioned>
}

export type QueueError = StoreError | LockTimeout

export interface QueueStoreShape {
  readonly path: string
  readonly add: (projectId: string, targets: ReadonlyArray<QueueTarget>, priority: number) => Effect.Effect<Added, QueueError>
  /** In queue order, with positions. */
  readonly list: Effect.Effect<ReadonlyArray<Positioned>, StoreError>
  /** Removes the entries `ref` names (an entry id, or an issue in any project); answers what went. */
  readonly remove: (ref: string) => Effect.Effect<ReadonlyArray<QueueEntry>, QueueError>
  /** Removes one entry by id (admitted or dropped); false when it was gone already. */
  readonly take: (id: string) => Effect.Effect<boolean, QueueError>
}

export class QueueStore extends Context.Service<QueueStore, QueueStoreShape>()("orch/store/QueueStore") {
  static readonly make = (root: string): QueueStoreShape => {
    const paths = storePaths(root)
    const path = join(root, "queue.json")
    const read = Effect.suspend((): Effect.Effect<QueueFile, StoreError> => {
      let text: string
      try {
        text = readFileSync(path, "utf8")
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === "ENOENT") return Effect.succeed(EMPTY)
        return Effect.fail(new StoreError({ path, reason: errnoReason(cause) }))
      }
      const decoded = decodeQueue(text)
      return decoded._tag === "Success"
        ? Effect.succeed(decoded.success)
        : Effect.fail(new StoreError({ path, reason: `not a valid queue: ${decoded.failure.message.split("\n")[0]}; move it away to start an empty queue` }))
    })
    const write = (file: QueueFile) => writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`)
    /** Reads, changes and writes the queue under its lock. */
    const change = <A>(f: (file: QueueFile, nowIso: string) => readonly [QueueFile | undefined, A]) =>
      withLock(paths.locks, "queue", "30 seconds")(Effect.gen(function*() {
        const file = yield* read
        const now = yield* Clock.currentTimeMillis
        const [next, answer] = f(file, new Date(now).toISOString())
        if (next !== undefined) yield* write(next)
        return answer
      }))

    const add = Effect.fn("QueueStore.add")(function*(projectId: string, targets: ReadonlyArray<QueueTarget>, priority: number) {
      const ids = yield* change((file, addedAt) => {
        const entries = [...file.entries]
        let next = file.next
        const added: Array<string> = []
        const already: Array<string> = []
        for (const target of targets) {
          const issue = "issue" in target ? target.issue.replace(/^#/, "") : undefined
          const existing = issue === undefined ? undefined : entries.find((e) => e.projectId === projectId && e.issue === issue)
          if (existing !== undefined) {
            already.push(existing.id)
            continue
          }
          const id = `q-${next}`
          entries.push({
            id,
            projectId,
            ...(issue !== undefined ? { issue } : { task: (target as { task: string }).task }),
            priority,
            addedAt,
            seq: next,
            ...("by" in target && target.by !== undefined ? { by: target.by } : {}),
            ...("title" in target && target.title !== undefined ? { title: target.title } : {})
          })
          added.push(id)
          next++
        }
        return [added.length > 0 ? { next, entries } : undefined, { added, already, entries }] as const
      })
      const ordered = queueOrder(ids.entries)
      const pick = (wanted: ReadonlyArray<string>) => wanted.map((id) => ordered.find((e) => e.id === id)!)
      return { added: pick(ids.added), already: pick(ids.already) }
    })

    const remove = Effect.fn("QueueStore.remove")(function*(ref: string) {
      const wanted = ref.replace(/^#/, "")
      return yield* change((file) => {
        const gone = file.entries.filter((e) => e.id === wanted || e.issue === wanted)
        return [gone.length > 0 ? { ...file, entries: file.entries.filter((e) => !gone.includes(e)) } : undefined, gone] as const
      })
    })

    const take = Effect.fn("QueueStore.take")(function*(id: string) {
      return yield* change((file) => {
        const kept = file.entries.filter((e) => e.id !== id)
        return [kept.length < file.entries.length ? { ...file, entries: kept } : undefined, kept.length < file.entries.length] as const
      })
    })

    return { path, add, list: Effect.map(read, (file) => queueOrder(file.entries)), remove, take }
  }

  /** The queue in `~/.orchestrator` (or `ORCH_HOME`). */
  static readonly layer = Layer.effect(QueueStore, Effect.map(Host, (host: HostShape) => QueueStore.make(dataDir(host))))
}
