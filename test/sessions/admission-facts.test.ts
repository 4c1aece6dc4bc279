/**
 * The admission facts from a config and the records: a project's PRs that wait on a person hold its queue back
 * at its `maxAwaitingReview`, and only its own.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { validateConfig } from "../../src/config/validate.ts"
import { admission } from "../../src/domain/admission.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { admissionFacts } from "../../src/sessions/admission-facts.ts"
import { tempDir, withHost } from "../support/host.ts"

const record = (sessionId: string, projectId: string, fields: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId,
  projectId,
  issueId: sessionId,
  status: "pr_open",
  activity: "idle",
  branch: `feat/${sessionId}`,
  workspacePath: "/w",
  runtime: null,
  agent: { plugin: "command" },
  pr: { number: 1, url: "u", state: "open" },
  checks: "passing",
  createdAt: "",
  updatedAt: "",
  ...fields
})

const roomy = { freeBytes: 64 * 1024 ** 3, load: 0, cores: 4, readAt: new Date(2026, 10, 26, 14).getTime() }

describe("admissionFacts", () => {
  it.effect("PRs awaiting a review count against the project's maxAwaitingReview; approved, red or another project's do not", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const project = (name: string, rest: Record<string, unknown> = {}) => ({
        repo: `acme/${name}`,
        path: `${root}/${name}`,
        tracker: { plugin: "none" },
        ...rest
      })
      const config = yield* validateConfig({ projects: { app: project("app", { maxAwaitingReview: 2 }), web: project("web") } }).pipe(
        withHost({ cwd: root, homeDir: root })
      )
      const records = [
        record("app-1", "app"),
        record("app-2", "app", { review: "approved" }),
        record("app-3", "app", { checks: "failing" }),
        record("web-1", "web"),
        record("web-2", "web"),
        // Its agent exited: it holds no session, but its PR still waits on a person.
        record("web-3", "web", { status: "errored", activity: "exited" })
      ]
      const entry = (id: string, projectId: string) => ({ id, projectId, agent: "command" })
      const one = admissionFacts(config, records, roomy)
      assert.deepStrictEqual(one.projects.app, { live: 3, awaitingReview: 1, maxAwaitingReview: 2 })
      assert.deepStrictEqual(one.projects.web, { live: 2, awaitingReview: 3 })
      assert.strictEqual(one.totalLive, 5)
      assert.deepStrictEqual(admission([entry("q1", "app")], one).admit?.id, "q1")

      const two = admissionFacts(config, [...records, record("app-4", "app")], roomy)
      const verdict = admission([entry("q1", "app"), entry("q2", "web")], two)
      assert.strictEqual(verdict.admit?.id, "q2", "web has no limit")
      assert.deepStrictEqual(verdict.waiting.map((w) => w.reason), ["waiting for reviews in app: 2 PRs await a review, its maxAwaitingReview 2"])
    }))

  it.effect("a rate-limited session holds back every project that spends the same credential, and only those", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const project = (name: string, agentConfig: Record<string, unknown>) => ({
        repo: `acme/${name}`,
        path: `${root}/${name}`,
        tracker: { plugin: "none" },
        agent: "coding-agent",
        agentConfig
      })
      const key = (value: string) => ({ env: { ANTHROPIC_API_KEY: value } })
      const config = yield* validateConfig({
        projects: { app: project("app", key("sk-one")), web: project("web", key("sk-one")), api: project("api", key("sk-two")), cli: project("cli", {}) }
      }).pipe(withHost({ cwd: root, homeDir: root }))
      const continueAt = new Date(2026, 10, 26, 16, 12).toISOString()
      const limited = record("app-3", "app", {
        status: "rate_limited",
        activity: "rate_limited",
        rateLimit: { since: continueAt, attempts: 1, continueAt }
      })
      const facts = admissionFacts(config, [limited, record("api-1", "api")], roomy)
      const entry = (projectId: string) => ({ id: `q-${projectId}`, projectId, agent: "coding-agent" })
      const verdict = admission(["app", "web", "api", "cli"].map(entry), facts)
      assert.strictEqual(verdict.admit?.id, "q-api", "another key is another credential")
      const quota = facts.projects.app!.rateLimited!
      assert.match(quota, /^agent coding-agent \(key [0-9a-f]{8}\) is rate-limited \(app-3\); orch tells app-3 to continue at 16:12 \S+$/)
      assert.deepStrictEqual(verdict.waiting.map((w) => [w.entry.projectId, w.reason]), [
        ["app", `waiting for the model quota: ${quota}`],
        ["web", `waiting for the model quota: ${quota}`],
        ["cli", "waiting for its turn"]
      ])
      assert.notInclude(JSON.stringify(facts), "sk-one")
    }))

  it.effect("the quota's sentence says what happens next: the agent retries by itself, or its provider is overloaded", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = yield* validateConfig({
        projects: { app: { repo: "acme/app", path: `${root}/app`, tracker: { plugin: "none" }, agent: "coding-agent" } }
      }).pipe(withHost({ cwd: root, homeDir: root }))
      const at = (minute: number) => new Date(2026, 10, 26, 16, minute).toISOString()
      const quota = (rateLimit: NonNullable<SessionRecord["rateLimit"]>) =>
        admissionFacts(config, [record("app-3", "app", { status: "rate_limited", activity: "rate_limited", rateLimit })], roomy).projects.app!.rateLimited
      assert.match(
        quota({ since: at(10), attempts: 1, resetAt: at(11), retrying: true, continueAt: at(12) })!,
        /^agent coding-agent is rate-limited \(app-3\); app-3 retries by itself, next at 16:11 \S+$/
      )
      assert.match(
        quota({ since: at(10), attempts: 1, kind: "overloaded", gaveUpAt: at(12), continueAt: at(13) })!,
        /^agent coding-agent's provider is overloaded \(app-3\); orch tells app-3 to continue at 16:13 \S+$/
      )
    }))

  it.effect("with hosts, this machine's memory and load are placement's to weigh: the project's facts carry why it cannot be placed", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = yield* validateConfig({
        hosts: { a: { ssh: "me@a" } },
        projects: { app: { repo: "acme/app", path: `${root}/app`, tracker: { plugin: "none" } } }
      }).pipe(withHost({ cwd: root, homeDir: root }))
      const full = { freeBytes: 0, load: 99, cores: 1, readAt: 0 }
      const facts = admissionFacts(config, [], full, undefined, { unplaceable: { app: "no host can take the session: a: it is down (refused)" } })
      assert.deepStrictEqual(facts.machine, { name: "this machine", reserveBytes: 1024 ** 3 })
      assert.strictEqual(facts.projects.app!.unplaceable, "no host can take the session: a: it is down (refused)")
      assert.strictEqual(admissionFacts(config, [], full).projects.app!.unplaceable, undefined)
    }))

  it.effect("this machine's sessions not yet measured hold their agent's expected size; a host's do not count here", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = yield* validateConfig({ projects: { app: { repo: "acme/app", path: `${root}/app`, tracker: { plugin: "none" } } } }).pipe(
        withHost({ cwd: root, homeDir: root })
      )
      const GB = 1024 ** 3
      const fresh = (sessionId: string, fields: Partial<SessionRecord> = {}) =>
        record(sessionId, "app", { status: "working", activity: "active", pr: null, ...fields })
      const reserved = [fresh("app-1"), fresh("app-2", { agent: { plugin: "codex" } }), fresh("app-3", { host: "a" })]
      const expectedBytes = (agent: string) => (agent === "codex" ? 0.5 * GB : GB)
      const machine = { freeBytes: 3 * GB, load: 0, cores: 4, readAt: roomy.readAt }
      const facts = admissionFacts(config, [...reserved, fresh("app-4")], machine, { expectedBytes, reserved })
      assert.deepStrictEqual(facts.machine.held, [GB, 0.5 * GB])
      assert.strictEqual(
        admission([{ id: "q1", projectId: "app", agent: "command" }], facts).waiting[0]?.reason,
        "waiting for memory on this machine: 3.0 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 512 MB to 1.0 GB each until they are measured, 1.0 GB needed"
      )
      assert.deepStrictEqual(admissionFacts(config, reserved, machine).machine.held, [], "nothing reserved: nothing held")
      // What a session already takes is in MemAvailable: only the rest of its expected size is held; one at its full
      // size (or past it) holds nothing more.
      const used = new Map([["app-1", 0.75 * GB], ["app-2", 0.6 * GB]])
      assert.deepStrictEqual(admissionFacts(config, reserved, machine, { expectedBytes, reserved, used }).machine.held, [0.25 * GB])
    }))
})
