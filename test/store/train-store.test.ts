/**
 * The merge trains on disk (src/store/TrainStore.ts): a change and its events are one step. Events a writer killed
 * between writing the file and appending them left in the file's outbox are appended by the next change, once (not
 * again when the log has them); a file that is not a train is an error saying what to do, never an empty train.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { emptyTrain } from "../../src/domain/train.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { listTrains, TrainStore } from "../../src/store/TrainStore.ts"
import { tempDir } from "../support/host.ts"

const joined = (sessionId: string, timestamp = "2026-11-27T22:00:00.000Z") => ({
  timestamp,
  type: "train.joined" as const,
  sessionId,
  projectId: "app",
  prNumber: 1,
  message: `PR #1 joined the merge train at position 1`
})

describe("TrainStore", () => {
  it.live("a change's events are appended once; a crash's outbox is appended by the next change unless the log has it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const log = yield* EventLog.make(join(root, "events.jsonl"))
      const store = TrainStore.make(root, log)
      const logged = () => readFileSync(join(root, "events.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line).sessionId)

      const car = { sessionId: "app-1", prNumber: 1, branch: "feat/1", priority: 0, joinedAt: "2026-11-27T22:00:00.000Z", seq: 1 }
      yield* store.change("app", (file) => ({ file: { ...file, next: 2, cars: [car] }, events: [joined("app-1")] }))
      assert.deepStrictEqual(logged(), ["app-1"])
      assert.deepStrictEqual(yield* store.read("app"), { ...emptyTrain("app"), next: 2, cars: [car] }, "the outbox is cleared")

      // Killed after the file (with its outbox) was written, before the event was appended:
      const size = yield* log.size
      const file = JSON.parse(readFileSync(join(root, "trains", "app.json"), "utf8"))
      writeFileSync(join(root, "trains", "app.json"), JSON.stringify({ ...file, outbox: { logOffset: size, events: [joined("app-2")] } }))
      yield* store.change("app", () => ({}))
      assert.deepStrictEqual(logged(), ["app-1", "app-2"], "appended by the next change")

      // Killed after the event was appended, before the outbox was cleared: not appended again.
      writeFileSync(join(root, "trains", "app.json"), JSON.stringify({ ...file, outbox: { logOffset: size, events: [joined("app-2")] } }))
      yield* store.change("app", () => ({}))
      assert.deepStrictEqual(logged(), ["app-1", "app-2"])
      assert.isUndefined((yield* store.read("app")).outbox)
    }).pipe(Effect.scoped))

  it.live("a train file that is not one is an error that says what to do; listing reads every project's", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      mkdirSync(join(root, "trains"))
      writeFileSync(join(root, "trains", "web.json"), JSON.stringify(emptyTrain("web")))
      assert.deepStrictEqual((yield* listTrains(root)).map((t) => t.projectId), ["web"])
      writeFileSync(join(root, "trains", "app.json"), "{ not json")
      const failure = yield* Effect.flip(listTrains(root))
      assert.include(failure.message, "move it away to start the project's train empty")
    }).pipe(Effect.scoped))
})
