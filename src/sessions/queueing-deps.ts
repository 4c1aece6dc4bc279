/** What the queue's procedures (queueing.ts) are given: the stores, the config in force, and the procedures they use. */
import type * as Effect from "effect/Effect"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { Hold } from "../domain/holds.ts"
import type { SessionRecord } from "../domain/session.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import type { TrackerError } from "../plugins/tracker/Tracker.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import type { QueueStoreShape } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"
import type { MachineReading } from "./admission-facts.ts"
import type { ProjectNotFound, ProjectNotGiven } from "./errors.ts"
import type { SpawnFailure } from "./failure-owner.ts"
import type { EntriesInFlight } from "./queue-in-flight.ts"
import type { SpawnTarget } from "./SessionOps.ts"
import type { SpawnOptions } from "./spawn-run.ts"

export interface QueueingDeps {
  readonly queue: QueueStoreShape
  readonly events: EventLogShape
  readonly store: SessionStoreShape
  readonly config: Effect.Effect<OrchestratorConfig>
  readonly findProject: (config: OrchestratorConfig, ref: string) => Effect.Effect<ProjectConfig, ProjectNotFound | ProjectNotGiven>
  readonly spawn: (
    projectId: string,
    target: SpawnTarget,
    options: Pick<SpawnOptions, "claim" | "drafted" | "refuseClosed" | "priority">
  ) => Effect.Effect<{ readonly record: SessionRecord }, SpawnFailure>
  /**
   * The issue as the project's tracker has it (undefined for a tracker that keeps none): `queue add` refuses an issue
   * the tracker says does not exist, and keeps the title of one it knows.
   */
  readonly lookup: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    issueId: string
  ) => Effect.Effect<{ readonly title: string } | undefined, TrackerError | PluginBuildError | ControlDirUnusable>
  /** For each project named, why no host could take one of its sessions now (hosts configured, or this machine held). */
  readonly unplaceable: (
    config: OrchestratorConfig,
    records: ReadonlyArray<SessionRecord>,
    projectIds: ReadonlyArray<string>,
    holds: ReadonlyArray<Hold>
  ) => Effect.Effect<Readonly<Record<string, string | undefined>>, ControlDirUnusable>
  /** This machine's memory and load now, read at each round: `readMachine` unless given (tests give their own). */
  readonly machine?: Effect.Effect<MachineReading>
  /** What this machine's reserved sessions already take (admission-facts.ts `Measured.used`); none read unless given. */
  readonly used?: (config: OrchestratorConfig, reserved: ReadonlyArray<SessionRecord>) => Effect.Effect<ReadonlyMap<string, number>>
  /** The entries this process is starting now (queue-in-flight.ts): its own unless given (reconcile shares it). */
  readonly inFlight?: EntriesInFlight
}
