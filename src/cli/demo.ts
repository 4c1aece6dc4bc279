/** `orch demo`: issue to merged PR in a sandbox, with no account and no network (src/demo/run.ts). */
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"

export const demo = Command.make(
  "demo",
  {
    headless: Flag.Boolean("headless").pipe(Flag.withDefault(false), Flag.withDescription("No browser; run to the end and exit 0 only if every step happened")),
    keep: Flag.Boolean("keep").pipe(Flag.withDefault(false), Flag.withDescription("Keep the sandbox directory afterwards")),
    port: Flag.Int("port").pipe(Flag.optional, Flag.withDescription("Dashboard port (default: a free one)")),
    timeout: Flag.Int("timeout").pipe(Flag.withDefault(180), Flag.withDescription("Seconds to wait for the scenario to finish"))
  },
  Effect.fn("cli.demo")(function*({ headless, keep, port, timeout }) {
    const { runDemo } = yield* Effect.promise(() => import("../demo/run.ts"))
    yield* runDemo({ headless, keep, port: port._tag === "Some" ? port.value : undefined, timeoutSeconds: timeout })
  })
).pipe(Command.withDescription("Watch orch take three issues to merged PRs in a sandbox (no account, no network)"))
