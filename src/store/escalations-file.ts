/**
 * The sessions whose actor the supervisor stopped restarting (it crashed too often: actors/actor-escalations.ts):
 * `<dataDir>/escalations.json`, written atomically by the supervisor, so a new supervisor does not watch them again
 * (and crash-loop and call a person again). An entry holds for the agent it was made for (the session's runtime
 * handle then): a session whose agent was started again since (a restore) is watched again. A missing file holds
 * nothing; one that does not decode is an error, with what to do.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import { RuntimeHandle } from "../domain/session.ts"
import type { StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { readJsonFile } from "./json-file.ts"

export const Escalation = Schema.Struct({
  sessionId: Schema.String,
  /** When the supervisor stopped watching it (ISO). */
  at: Schema.String,
  reason: Schema.String,
  /** The session's runtime handle when it was escalated: the entry holds while the record names this one. */
  runtime: Schema.NullOr(RuntimeHandle)
})
export type Escalation = typeof Escalation.Type

export const EscalationsFile = Schema.Struct({ escalations: Schema.Array(Escalation) })

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(EscalationsFile))
export const escalationsPath = (root: string) => join(root, "escalations.json")

export const readEscalations = (root: string): Effect.Effect<ReadonlyArray<Escalation>, StoreError> =>
  Effect.map(
    readJsonFile(escalationsPath(root), decode, { missing: { escalations: [] }, whenUnreadable: "move it away (orch then watches every session again)" }),
    (file) => file.escalations
  )

export const writeEscalations = (root: string, escalations: ReadonlyArray<Escalation>): Effect.Effect<void, StoreError> =>
  writeFileAtomic(escalationsPath(root), `${JSON.stringify({ escalations }, null, 2)}\n`)
