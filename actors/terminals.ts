/**
 * Which runtime shows a session's terminal (for the dashboard's terminal sockets): its project's runtime in
 * force, when that runtime is the one the session runs in and it can attach viewers.
 */
import * as Effect from "effect/Effect"
import type { SessionRecord } from "../src/domain/session.ts"
import { type Attach, TerminalUnavailable } from "../src/domain/terminal.ts"
import type { RuntimeShape } from "../src/plugins/runtime/Runtime.ts"

export const terminalOf =
  (runtimeOf: (projectId: string) => RuntimeShape | undefined) => (record: SessionRecord): Effect.Effect<Attach, TerminalUnavailable> => {
    const unavailable = (reason: string) => Effect.fail(new TerminalUnavailable({ sessionId: record.sessionId, reason }))
    const runtime = runtimeOf(record.projectId)
    if (runtime === undefined) return unavailable(`orch does not watch project ${record.projectId} now; add it back to the config to see its sessions`)
    const plugin = record.runtime?.plugin
    if (plugin !== undefined && plugin !== runtime.name) {
      return unavailable(`${record.sessionId} runs in the ${plugin} runtime, but its project now uses ${runtime.name}, which cannot show it`)
    }
    if (runtime.attach === undefined) return unavailable("this session's runtime has no terminal to show")
    return Effect.succeed(runtime.attach)
  }
