/**
 * Who the probe cycle asks about which sessions: local sessions through their project's runtime (one call per
 * project, as ever), sessions on other hosts through their host (one round trip per host, whatever their projects).
 */
import { LOCAL } from "../../src/config/host-spec.ts"
import { hostOf, type SessionRecord } from "../../src/domain/session.ts"

export interface ProbeGroups<R> {
  /** Local sessions by project, in first-seen order. */
  readonly local: ReadonlyMap<string, ReadonlyArray<R>>
  /** Sessions on other hosts by host, in first-seen order. */
  readonly remote: ReadonlyMap<string, ReadonlyArray<R>>
}

export const probeGroups = <R extends Pick<SessionRecord, "host" | "projectId">>(records: ReadonlyArray<R>): ProbeGroups<R> => {
  const local = new Map<string, Array<R>>()
  const remote = new Map<string, Array<R>>()
  for (const record of records) {
    const host = hostOf(record)
    const [groups, key] = host === LOCAL ? [local, record.projectId] : [remote, host]
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [record])
    else group.push(record)
  }
  return { local, remote }
}
