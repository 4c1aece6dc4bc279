/**
 * The inbox of what orch told people (written by the `hosted` notifier, read by the dashboard and
 * `orch notifications`): `<dataDir>/notifications.jsonl`, append-only. A line is a notification, or a marker:
 * `{"read":"<id>"}` marks one notification read, `{"readAll":"<timestamp>"}` marks every notification on the
 * lines before it read. Reading folds the lines; malformed ones are skipped.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { Notification } from "../domain/notification.ts"
import type { StoreError } from "./errors.ts"
import { appendLine, attempt } from "./files.ts"
import { storePaths } from "./paths.ts"

export type InboxEntry = Notification & { readonly read: boolean }

export interface ListOptions {
  readonly unreadOnly?: boolean
  readonly limit?: number
}

export interface InboxShape {
  readonly path: string
  readonly add: (notification: Notification) => Effect.Effect<void, StoreError>
  /** Newest first. */
  readonly list: (options?: ListOptions) => Effect.Effect<ReadonlyArray<InboxEntry>, StoreError>
  readonly markRead: (ids: ReadonlyArray<string>) => Effect.Effect<void, StoreError>
  readonly markAllRead: () => Effect.Effect<void, StoreError>
  readonly unreadCount: Effect.Effect<number, StoreError>
}

const isNotification = Schema.is(Notification)
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** Folds the file's lines into entries, newest first (by timestamp, then by position in the file). */
export const foldInbox = (text: string): Array<InboxEntry> => {
  const entries = new Map<string, { readonly notification: Notification; readonly line: number }>()
  const readIds = new Set<string>()
  let readAllBefore = -1
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      return
    }
    if (isNotification(value)) entries.set(value.id, { notification: value, line: index })
    else if (isObject(value) && typeof value.read === "string") readIds.add(value.read)
    else if (isObject(value) && typeof value.readAll === "string") readAllBefore = index
  })
  const time = (timestamp: string) => {
    const ms = Date.parse(timestamp)
    return Number.isNaN(ms) ? -Infinity : ms
  }
  return [...entries.values()]
    .sort((a, b) => time(b.notification.timestamp) - time(a.notification.timestamp) || b.line - a.line)
    .map(({ line, notification }) => ({ ...notification, read: readIds.has(notification.id) || line < readAllBefore }))
}

export const makeInbox = (dataDir: string): InboxShape => {
  const path = storePaths(dataDir).inbox
  const read = attempt(path, () => {
    try {
      return readFileSync(path, "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return ""
      throw error
    }
  }).pipe(Effect.map(foldInbox))
  const list = Effect.fn("Inbox.list")(function*(options: ListOptions = {}) {
    const entries = yield* read
    const shown = options.unreadOnly === true ? entries.filter((entry) => !entry.read) : entries
    return options.limit !== undefined ? shown.slice(0, Math.max(0, options.limit)) : shown
  })
  return {
    path,
    add: Effect.fn("Inbox.add")(function*(notification: Notification) {
      yield* appendLine(path, JSON.stringify(notification))
    }),
    list,
    markRead: Effect.fn("Inbox.markRead")(function*(ids: ReadonlyArray<string>) {
      // one write for all the markers, so they land together
      if (ids.length > 0) yield* appendLine(path, ids.map((id) => JSON.stringify({ read: id })).join("\n"))
    }),
    markAllRead: Effect.fn("Inbox.markAllRead")(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* appendLine(path, JSON.stringify({ readAll: new Date(now).toISOString() }))
    }),
    unreadCount: read.pipe(Effect.map((entries) => entries.filter((entry) => !entry.read).length))
  }
}

export class Inbox extends Context.Service<Inbox, InboxShape>()("orch/store/Inbox") {
  static readonly layer = (dataDir: string) => Layer.succeed(Inbox, makeInbox(dataDir))
}
