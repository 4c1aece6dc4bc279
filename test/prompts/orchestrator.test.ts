/** The orchestrator agent's prompt names the hosts workers may run on, only when other machines are configured. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { validateConfig } from "../../src/config/validate.ts"
import { buildOrchestratorPrompt } from "../../src/prompts/orchestrator.ts"
import { withHost } from "../support/host.ts"

const configWith = (extra: Record<string, unknown>, project: Record<string, unknown> = {}) =>
  validateConfig({ ...extra, projects: { app: { repo: "acme/app", path: "/w/app", ...project } } }).pipe(withHost({ cwd: "/w" }))

describe("the orchestrator's prompt", () => {
  it.effect("without hosts it says nothing of them", () =>
    Effect.gen(function*() {
      const config = yield* configWith({})
      assert.notInclude(buildOrchestratorPrompt(config, config.projects.app!), "## Hosts")
    }))

  it.effect("names the hosts the project may use, their labels and limits, and how to choose and look at them", () =>
    Effect.gen(function*() {
      const hosts = {
        big: { ssh: "orch@big.lan", labels: ["gpu", "linux"], maxSessions: 8 },
        small: { ssh: "orch@small.lan:2222" },
        other: { ssh: "orch@other.lan" }
      }
      const config = yield* configWith({ hosts }, { hosts: ["local", "big", "small"], hostLabels: ["linux"] })
      const prompt = buildOrchestratorPrompt(config, config.projects.app!)
      const section = prompt.slice(prompt.indexOf("## Hosts"), prompt.indexOf("## What orch does"))
      assert.strictEqual(
        section,
        [
          "## Hosts",
          "Workers may run on these machines (this project needs the labels linux):",
          "- `local`: this machine.",
          "- `big`: labels gpu, linux; at most 8 sessions.",
          "- `small`.",
          "orch places each new worker on the host with the most headroom; `orch spawn ... --host <name>` chooses one.",
          "`orch hosts` shows each host's free memory, load, sessions and whether it answers; the HOST column of `orch status` (`host` in `--json`) says where each worker runs.",
          "A host that stops answering leaves its workers `unknown`: do not start them again elsewhere; orch picks them up when the host is back.",
          "",
          ""
        ].join("\n")
      )
    }))

  it.effect("says where predicted conflicts show and what orch already does about them, as the reaction is set", () =>
    Effect.gen(function*() {
      const byDefault = yield* configWith({})
      const prompt = buildOrchestratorPrompt(byDefault, byDefault.projects.app!)
      assert.include(prompt, "## Predicted conflicts")
      assert.include(prompt, "`orch status --json` a `conflicts` list on each session")
      assert.include(prompt, "orch already tells the worker whose PR would merge later")
      const notify = yield* configWith({}, { reactions: { "predicted-conflict": { action: "notify" } } })
      assert.include(buildOrchestratorPrompt(notify, notify.projects.app!), "orch sends a notification about each new one")
      const off = yield* configWith({}, { reactions: { "predicted-conflict": { auto: false } } })
      assert.include(buildOrchestratorPrompt(off, off.projects.app!), "telling the workers is yours.")
    }))
})
