/**
 * The events of a change to a file orch writes whole (the queue, a merge train), written in the same file as the
 * change before they are appended to the event log (from `logOffset`, its size then), and cleared after: whoever
 * next changes the file appends those a crash left unwritten (src/store/outbox.ts).
 */
import * as Schema from "effect/Schema"
import { OrchEvent } from "./event.ts"

export const Outbox = Schema.Struct({ logOffset: Schema.Int, events: Schema.Array(OrchEvent) })
export type Outbox = typeof Outbox.Type
