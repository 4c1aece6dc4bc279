/**
 * What a new config changes against the one in force, and what of it waits for a restart (src/config/change.ts):
 * a table of edits a person makes, each with what the reload must report and put in force.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { configChange, describeChange, isUnchanged, LIVE_SETTINGS, RESTART_SETTINGS } from "../../src/config/change.ts"
import type { OrchestratorConfig } from "../../src/config/schema.ts"
import { validateConfig } from "../../src/config/validate.ts"
import { withHost } from "../support/host.ts"

const app = { repo: "acme/app", path: "/code/app", agent: "command", agentConfig: { command: "echo" } }
const web = { repo: "acme/web", path: "/code/web" }
const base = { projects: { app } }

const load = (raw: Record<string, unknown>) => Effect.runSync(validateConfig(raw).pipe(withHost({ homeDir: "/home/me", cwd: "/code", env: {} })))

interface Row {
  readonly name: string
  readonly next: Record<string, unknown>
  readonly added?: ReadonlyArray<string>
  readonly removed?: ReadonlyArray<string>
  readonly changed?: ReadonlyArray<string>
  readonly settings?: ReadonlyArray<string>
  readonly restartNeeded?: ReadonlyArray<string>
  readonly said: string
}

const rows: ReadonlyArray<Row> = [
  { name: "the same file (say, a comment edited)", next: base, said: "nothing the supervisor runs on changed" },
  { name: "a project added", next: { projects: { app, web } }, added: ["web"], said: "projects added: web" },
  { name: "a project removed", next: { projects: { web } }, added: ["web"], removed: ["app"], said: "projects added: web; projects removed: app" },
  {
    name: "a project's agent changed",
    next: { projects: { app: { ...app, agentConfig: { command: "cat" } } } },
    changed: ["app"],
    said: "projects changed: app"
  },
  {
    name: "a project renamed under another key: same id (its path), so changed, not removed and added",
    next: { projects: { main: app } },
    changed: ["app"],
    said: "projects changed: app"
  },
  {
    name: "a project's own reaction override",
    next: { projects: { app: { ...app, reactions: { "ci-failed": { retries: 5 } } } } },
    changed: ["app"],
    said: "projects changed: app"
  },
  {
    name: "the global reactions, routing and notifiers",
    next: {
      ...base,
      reactions: { "ci-failed": { action: "notify", priority: "urgent" } },
      notifiers: { ops: { plugin: "webhook", url: "http://x" } },
      notificationRouting: { urgent: ["ops"] }
    },
    settings: ["notifiers", "notificationRouting", "reactions"],
    said: "notifiers, notificationRouting, reactions changed"
  },
  {
    name: "the hosts: the next session's placement and the host watch use the new ones",
    next: { ...base, hosts: { a: { ssh: "me@box" } } },
    settings: ["hosts"],
    said: "hosts changed"
  },
  {
    name: "maxSessions, added or changed: the next admission round counts with it",
    next: { ...base, maxSessions: 3 },
    settings: ["maxSessions"],
    said: "maxSessions changed"
  },
  {
    name: "thresholds",
    next: { ...base, readyThresholdMs: 1000, pollIntervalMs: 60_000 },
    settings: ["readyThresholdMs", "pollIntervalMs"],
    said: "readyThresholdMs, pollIntervalMs changed"
  },
  {
    name: "defaults: a project that takes its runtime from them changes too",
    next: { ...base, defaults: { runtime: "process" } },
    changed: ["app"],
    settings: ["defaults"],
    said: "projects changed: app; defaults changed"
  },
  {
    name: "the dashboard's port: waits for a restart, the rest applies",
    next: { ...base, port: 4000, readyThresholdMs: 1000 },
    settings: ["readyThresholdMs"],
    restartNeeded: ["port"],
    said: "readyThresholdMs changed; port needs a restart"
  },
  {
    name: "every listening address",
    next: { ...base, host: "0.0.0.0", port: 4000, terminalPort: 4001, directTerminalPort: 4003 },
    restartNeeded: ["host", "port", "terminalPort", "directTerminalPort"],
    said: "host, port, terminalPort, directTerminalPort need a restart"
  }
]

describe("configChange", () => {
  const running = load(base)

  it.each(rows)("$name", (row) => {
    const candidate = load(row.next)
    const change = configChange(running, candidate)
    assert.deepStrictEqual(
      { added: change.added, removed: change.removed, changed: change.changed, settings: change.settings, restartNeeded: change.restartNeeded },
      { added: row.added ?? [], removed: row.removed ?? [], changed: row.changed ?? [], settings: row.settings ?? [], restartNeeded: row.restartNeeded ?? [] }
    )
    assert.strictEqual(describeChange(change), row.said)
    assert.strictEqual(isUnchanged(change), row.said === "nothing the supervisor runs on changed")
    // What goes in force: the new config, except what waits for a restart, which keeps its running value.
    for (const key of RESTART_SETTINGS) assert.strictEqual(change.next[key], running[key], key)
    assert.deepStrictEqual(change.next.projects, candidate.projects)
    assert.deepStrictEqual(change.next.reactions, candidate.reactions)
  })

  it("a plugin module moved: the projects that use it change, the others do not", () => {
    const withModule = (path: string) => load({ projects: { app: { ...app, runtime: "mine" }, web }, plugins: { mine: { path } } })
    const change = configChange(withModule("/plugins/v1.mjs"), withModule("/plugins/v2.mjs"))
    assert.deepStrictEqual([change.added, change.removed, change.changed, change.settings], [[], [], ["app"], ["plugins"]])
  })

  it("a setting that waits for a restart keeps waiting while the file differs, and stops when it is put back", () => {
    const first = configChange(running, load({ ...base, port: 4000 }))
    assert.deepStrictEqual(first.restartNeeded, ["port"])
    const again = configChange(first.next, load({ ...base, port: 4000, readyThresholdMs: 1 }))
    assert.deepStrictEqual(again.restartNeeded, ["port"])
    assert.deepStrictEqual(configChange(again.next, load({ ...base, readyThresholdMs: 1 })).restartNeeded, [])
  })

  it("every top-level setting is classified: applied live, waiting for a restart, or the projects", () => {
    const config: OrchestratorConfig = load({ ...base, maxSessions: 2 })
    const known = new Set<string>([...LIVE_SETTINGS, ...RESTART_SETTINGS, "projects", "configPath"])
    assert.deepStrictEqual(Object.keys(config).filter((key) => !known.has(key)), [])
  })
})
