/** Notification priorities, most urgent first. */
import * as Schema from "effect/Schema"

export const EventPriority = Schema.Literals(["urgent", "action", "warning", "info"]).annotate({
  description: "Notification priority"
})
export type EventPriority = typeof EventPriority.Type
export const PRIORITIES: ReadonlyArray<EventPriority> = EventPriority.literals
