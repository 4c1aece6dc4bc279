/**
 * What must hold of a merge train after any crash and its recovery (the `merge-train` scenario), from the train file
 * (its real Schema), the event log, the emulator's pull requests, git in origin and the CI verdicts the world kept:
 * - nothing merged whose checks did not pass on a head containing the default branch's head of that moment, and
 *   what was merged is that head's tree; no commit on main whose checks failed;
 * - no duplicate merge;
 * - no car lost, and the events match the file: each car's `train.joined` is followed by one `train.merged` or
 *   `train.left` (with a reason) before it joins again; a car whose last word is `joined` is in the file, one whose
 *   last word is not is not in it; a merged PR has its `train.merged`, or is the car the file shows merging it.
 */
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { OrchEvent } from "../../src/domain/event.ts"
import { TrainFile } from "../../src/domain/train.ts"
import type { World } from "./world.ts"

const decodeTrain = Schema.decodeUnknownResult(Schema.fromJsonString(TrainFile))
const short = (sha: string) => sha.slice(0, 7)

const readTrain = (world: World, violations: Array<string>): TrainFile | undefined => {
  let text: string
  try {
    text = readFileSync(join(world.dataDir, "trains", "app.json"), "utf8")
  } catch {
    return undefined
  }
  const decoded = decodeTrain(text)
  if (decoded._tag === "Success") return decoded.success
  violations.push(`trains/app.json does not parse as a train: ${decoded.failure.message.split("\n")[0]}`)
  return undefined
}

const tryGit = (world: World, ...args: Array<string>): string | undefined => {
  try {
    return world.git(world.origin, ...args)
  } catch {
    return undefined
  }
}

const mergeChecks = (world: World, events: ReadonlyArray<OrchEvent>, train: TrainFile | undefined, violations: Array<string>) => {
  // Issues and pull requests share the repository's numbers: every number a run can reach is looked at.
  for (let number = 1; number <= 100; number++) {
    const pull = world.emulator.pull("acme/app", number)
    if (pull === undefined) continue
    const byTrain = events.filter((e) => e.type === "train.merged" && e.prNumber === number)
    if (byTrain.length > 1) violations.push(`PR #${number} has ${byTrain.length} train.merged events`)
    if (!pull.merged || pull.mergeCommit === null) {
      if (byTrain.length > 0) violations.push(`PR #${number} has a train.merged event but is not merged`)
      continue
    }
    const merging = train?.cars.find((car) => car.prNumber === number && car.step?.kind === "merging")
    const head = (byTrain[0]?.data as { head?: string } | undefined)?.head ?? (merging?.step?.kind === "merging" ? merging.step.head : undefined)
    if (head === undefined) {
      violations.push(`PR #${number} is merged, but neither a train.merged event nor a car the train file shows merging says what was merged`)
      continue
    }
    const base = tryGit(world, "rev-parse", `${pull.mergeCommit}^1`) ?? ""
    if (tryGit(world, "merge-base", "--is-ancestor", base, head) === undefined) {
      violations.push(`PR #${number} was merged at ${short(head)}, which does not contain main's head ${short(base)} of that moment`)
    }
    if (world.ciVerdicts.get(head) !== "success") {
      violations.push(`PR #${number} was merged at ${short(head)}, whose checks ${world.ciVerdicts.has(head) ? "failed" : "never ran"}`)
    }
    if (tryGit(world, "rev-parse", `${head}^{tree}`) !== tryGit(world, "rev-parse", `${pull.mergeCommit}^{tree}`)) {
      violations.push(`PR #${number}'s merge ${short(pull.mergeCommit)} is not the tree of the head ${short(head)} its checks passed on`)
    }
  }
  for (const commit of (tryGit(world, "rev-list", "--first-parent", "main") ?? "").split("\n").filter(Boolean)) {
    if (world.ciVerdicts.get(commit) === "failure") violations.push(`main has a commit whose checks failed: ${short(commit)}`)
  }
}

const eventChecks = (events: ReadonlyArray<OrchEvent>, train: TrainFile | undefined, violations: Array<string>) => {
  const trainEvents = events.filter((e) => e.type === "train.joined" || e.type === "train.merged" || e.type === "train.left")
  const sessions = new Set([...trainEvents.map((e) => e.sessionId ?? ""), ...(train?.cars ?? []).map((car) => car.sessionId)])
  for (const sessionId of sessions) {
    let inTrain = false
    for (const event of trainEvents.filter((e) => e.sessionId === sessionId)) {
      if (event.type === "train.joined" && inTrain) violations.push(`${sessionId} joined the train again without leaving it`)
      if (event.type !== "train.joined" && !inTrain) violations.push(`${sessionId} has a ${event.type} while not in the train`)
      if (event.type === "train.left" && !((event.data as { reason?: string } | undefined)?.reason)) {
        violations.push(`${sessionId} left the train without a reason`)
      }
      inTrain = event.type === "train.joined"
    }
    const inFile = train?.cars.some((car) => car.sessionId === sessionId) ?? false
    if (inTrain && !inFile) violations.push(`${sessionId} joined the train and never merged or left, but the train file has no car of it (a car lost)`)
    if (!inTrain && inFile) violations.push(`the train file has a car of ${sessionId}, but its events say it is not in the train`)
  }
}

/** Every merge-train invariant, as sentences; none when all hold (or when the run never had a train). */
export const checkTrain = (world: World, events: ReadonlyArray<OrchEvent>): Array<string> => {
  const violations: Array<string> = []
  const train = readTrain(world, violations)
  // Events a crash left in the file's outbox are owed to the log: the train's next change appends them first.
  const logged = new Set(events.map((e) => JSON.stringify(e)))
  const owed = (train?.outbox?.events ?? []).filter((e) => !logged.has(JSON.stringify(e)))
  mergeChecks(world, [...events, ...owed], train, violations)
  eventChecks([...events, ...owed], train, violations)
  return violations
}
