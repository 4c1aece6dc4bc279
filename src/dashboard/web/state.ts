/**
 * What the page knows, kept current by one subscription to the supervisor's live stream (`/api/events`):
 * a snapshot first (again after every reconnect), then each record, event and inbox change as it happens.
 * Views subscribe to the changes they draw.
 */
import { doublingDelay } from "../../domain/backoff.ts"
import type { ConflictPrediction } from "../../domain/conflict.ts"
import type { OrchEvent } from "../../domain/event.ts"
import type { SessionRecord } from "../../domain/session.ts"
import type { InboxEntry, InboxState, LiveMessage, QueuedEntry, TrainCarView } from "../api.ts"
import { showsOnCard } from "../board.ts"

/** `signed-out`: the supervisor refuses the page's token (it was made anew); only the printed URL helps. */
export type Connection = "connecting" | "live" | "disconnected" | "stopped" | "signed-out"

export type Change =
  | { readonly kind: "snapshot" }
  | { readonly kind: "session"; readonly sessionId: string }
  | { readonly kind: "event"; readonly event: OrchEvent }
  | { readonly kind: "inbox"; readonly arrived: ReadonlyArray<InboxEntry> }
  | { readonly kind: "queue" }
  | { readonly kind: "train" }
  | { readonly kind: "conflicts" }
  | { readonly kind: "connection" }

export interface State {
  connection: Connection
  loaded: boolean
  readonly sessions: Map<string, SessionRecord>
  readonly lastEvents: Map<string, OrchEvent>
  inbox: InboxState
  /** Queued work in queue order, each entry with the budget it waits on. */
  queue: ReadonlyArray<QueuedEntry>
  /** Every project's merge train, car by car in order. */
  train: ReadonlyArray<TrainCarView>
  /** The supervisor's predicted conflicts between live branches. */
  conflicts: ReadonlyArray<ConflictPrediction>
}

export const createState = () => {
  const state: State = {
    connection: "connecting",
    loaded: false,
    sessions: new Map(),
    lastEvents: new Map(),
    inbox: { unread: 0, entries: [] },
    queue: [],
    train: [],
    conflicts: []
  }
  const listeners = new Set<(change: Change) => void>()
  const emit = (change: Change) => {
    for (const listener of [...listeners]) listener(change)
  }
  const setInbox = (inbox: InboxState): ReadonlyArray<InboxEntry> => {
    const known = new Set(state.inbox.entries.map((entry) => entry.id))
    state.inbox = inbox
    return inbox.entries.filter((entry) => !known.has(entry.id))
  }

  const apply = (message: LiveMessage) => {
    switch (message.kind) {
      case "snapshot": {
        state.sessions.clear()
        for (const record of message.sessions) state.sessions.set(record.sessionId, record)
        state.lastEvents.clear()
        for (const [id, event] of Object.entries(message.lastEvents)) state.lastEvents.set(id, event)
        state.inbox = message.inbox
        state.queue = message.queue
        state.train = message.train
        state.conflicts = message.conflicts
        state.loaded = true
        return emit({ kind: "snapshot" })
      }
      case "session": {
        if (message.record === null) state.sessions.delete(message.sessionId)
        else state.sessions.set(message.sessionId, message.record)
        return emit({ kind: "session", sessionId: message.sessionId })
      }
      case "event": {
        if (message.event.sessionId !== undefined && showsOnCard(message.event)) state.lastEvents.set(message.event.sessionId, message.event)
        return emit({ kind: "event", event: message.event })
      }
      case "inbox":
        return emit({ kind: "inbox", arrived: setInbox({ unread: message.unread, entries: message.entries }) })
      case "queue":
        state.queue = message.entries
        return emit({ kind: "queue" })
      case "train":
        state.train = message.cars
        return emit({ kind: "train" })
      case "conflicts":
        state.conflicts = message.predictions
        return emit({ kind: "conflicts" })
    }
  }

  const setConnection = (connection: Connection) => {
    if (state.connection === connection) return
    state.connection = connection
    emit({ kind: "connection" })
  }

  /**
   * Opens the stream. EventSource reconnects by itself after a dropped connection; a stream it gave up on
   * (the supervisor was down long enough, or answered with an error) is opened again, less and less often.
   * Every connection starts with a fresh snapshot, so nothing missed while away stays missing.
   */
  const connect = (attempt = 0) => {
    const source = new EventSource("/api/events")
    source.onerror = () => {
      // Once the supervisor said it stopped, that is what is shown until it is back.
      if (state.connection !== "stopped") setConnection("disconnected")
      if (source.readyState !== EventSource.CLOSED) return
      source.close()
      // EventSource does not say why it gave up; a refused token is worth telling apart from a supervisor that is down.
      fetch("/api/sessions", { method: "GET", cache: "no-store" }).then(
        (response) => {
          if (response.status === 401) setConnection("signed-out")
        },
        () => {}
      )
      setTimeout(() => connect(attempt + 1), doublingDelay(1000, attempt + 1, 30_000))
    }
    // The supervisor is stopping and ended the stream: said as such, and looked for again, less and less often.
    source.addEventListener("stopping", () => {
      source.close()
      setConnection("stopped")
      setTimeout(() => connect(attempt + 1), doublingDelay(1000, attempt + 1, 30_000))
    })
    for (const kind of ["snapshot", "session", "event", "inbox", "queue", "train", "conflicts"] as const) {
      source.addEventListener(kind, (event) => {
        attempt = 0
        setConnection("live")
        apply(JSON.parse((event as MessageEvent<string>).data) as LiveMessage)
      })
    }
  }

  return {
    state,
    connect: () => connect(),
    subscribe: (listener: (change: Change) => void) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    /** The inbox as an action just left it (the stream says so too, a moment later). */
    setInbox: (inbox: InboxState) => emit({ kind: "inbox", arrived: setInbox(inbox) })
  }
}

export type Store = ReturnType<typeof createState>
