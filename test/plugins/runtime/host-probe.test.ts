/**
 * The supervisor's probe of a host (src/plugins/runtime/host-probe.ts) with the minute's reads riding it, its script run by a
 * real shell and tmux: the "host" is this machine (`local`, whose scripts run in `sh -s`), its data dir the test's own.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LOCAL } from "../../../src/config/host-spec.ts"
import { HostConnections } from "../../../src/hosts/HostConnections.ts"
import { probeHost } from "../../../src/plugins/runtime/host-probe.ts"
import { makeRemoteTmux } from "../../../src/plugins/runtime/remote-tmux.ts"
import { storePaths } from "../../../src/store/paths.ts"
import { tempDir } from "../../support/host.ts"
import { countingRoundTrips } from "../../support/round-trips.ts"

describe("a host's probe (real shell and tmux)", () => {
  it.effect("one round trip: liveness, the activity files' new lines, and when due the headroom and the ps of session sizes", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-host-probe-")
      const there = join(dir, "there")
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => void execFileSync("sh", ["-c", `tmux -S '${join(there, "tmux", "default")}' kill-server 2>/dev/null || true`]))
      )
      const real = yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") })
      const { counted, trips } = countingRoundTrips(real)
      const handle = yield* makeRemoteTmux(real, LOCAL, there).create({
        sessionId: "app-1",
        workingDir: dir,
        command: "while IFS= read -r l; do :; done",
        env: {},
        unsetEnv: []
      })
      mkdirSync(join(there, "sessions", "app", "app-1"), { recursive: true })
      writeFileSync(join(there, "sessions", "app", "app-1", "activity.jsonl"), `{"event":"Stop"}\n`)
      const here = storePaths(join(dir, "here"))
      mkdirSync(join(dir, "here", "sessions", "app", "app-1"), { recursive: true })
      const session = { projectId: "app", sessionId: "app-1", runtime: handle }

      const plain = yield* probeHost(counted, here, LOCAL, there, [session])
      assert.strictEqual(trips(), 1)
      assert.strictEqual(plain.liveness.get("app-1")?._tag, "Alive")
      assert.isUndefined(plain.headroom)
      assert.isUndefined(plain.ps)
      assert.strictEqual(readFileSync(here.activity("app", "app-1"), "utf8"), `{"event":"Stop"}\n`)

      const minute = yield* probeHost(counted, here, LOCAL, there, [session], { headroom: true, ps: true })
      assert.strictEqual(trips(), 2, "the minute's reads rode the probe")
      assert.strictEqual(minute.liveness.get("app-1")?._tag, "Alive")
      assert.isObject(minute.headroom)
      if (typeof minute.headroom === "object") assert.isAbove(minute.headroom.memAvailableMb, 0)
      const pid = plain.liveness.get("app-1")?._tag === "Alive" ? (plain.liveness.get("app-1") as { pid?: number }).pid : undefined
      assert.match(minute.ps ?? "", new RegExp(`^\\s*${pid}\\s+\\d+\\s+\\d+$`, "m"), "the pane's process is in the ps")
      assert.strictEqual(readFileSync(here.activity("app", "app-1"), "utf8"), `{"event":"Stop"}\n`, "no line mirrored twice")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
