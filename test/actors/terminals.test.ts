/** Which runtime shows a session's terminal: its project's runtime in force, when it is the session's and can attach. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { terminalOf } from "../../actors/terminals.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import type { Attach } from "../../src/domain/terminal.ts"
import type { RuntimeShape } from "../../src/plugins/runtime/Runtime.ts"

const record = (plugin: string) => ({ sessionId: "app-1", projectId: "app", runtime: { plugin, id: "app-1", data: {} } }) as unknown as SessionRecord
const runtime = (name: string, attach?: Attach) => ({ name, ...(attach !== undefined ? { attach } : {}) }) as unknown as RuntimeShape
const attach: Attach = () => Effect.die("not attached in this test")

describe("terminalOf", () => {
  it.effect("the project's runtime's attach, or why there is no terminal", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* terminalOf(() => runtime("multiplexer", attach))(record("multiplexer")), attach)
      const reason = (runtimes: RuntimeShape | undefined, plugin: string) =>
        Effect.map(Effect.flip(terminalOf(() => runtimes)(record(plugin))), (error) => error.message)
      assert.strictEqual(yield* reason(runtime("custom"), "custom"), "this session's runtime has no terminal to show")
      assert.strictEqual(
        yield* reason(runtime("process", attach), "multiplexer"),
        "app-1 runs in the multiplexer runtime, but its project now uses process, which cannot show it"
      )
      assert.strictEqual(yield* reason(undefined, "multiplexer"), "orch does not watch project app now; add it back to the config to see its sessions")
    }))
})
