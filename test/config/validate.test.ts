import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { DEFAULT_REACTIONS } from "../../src/config/defaults.ts"
import { ConfigValidationError, DuplicateProjectIdError, DuplicateSessionPrefixError } from "../../src/config/errors.ts"
import { projectReactions } from "../../src/config/normalize.ts"
import { getDefaultConfig, validateConfig } from "../../src/config/validate.ts"
import { withHost } from "../support/host.ts"

const host = withHost({ env: { GITHUB_TOKEN: "ghp_x", HOOK: "https://hooks.example/x" }, homeDir: "/home/u", cwd: "/work" })
const project = (extra: Record<string, unknown> = {}) => ({ repo: "acme/app", path: "~/code/app", ...extra })
const valid = (raw: unknown) => validateConfig(raw).pipe(host)
const issuesOf = (raw: unknown) =>
  validateConfig(raw).pipe(
    host,
    Effect.flip,
    Effect.map((error) => {
      assert.instanceOf(error, ConfigValidationError)
      return (error as ConfigValidationError).issues.map((i) => `${i.path}: ${i.message}`)
    })
  )

describe("defaults", () => {
  it.effect("a minimal config gets every default of the spec", () =>
    Effect.gen(function*() {
      const config = yield* valid({ projects: { app: project() } })
      assert.strictEqual(config.host, "127.0.0.1")
      assert.strictEqual(config.port, 3000)
      assert.strictEqual(config.terminalPort, 3001)
      assert.strictEqual(config.directTerminalPort, 3003)
      assert.strictEqual(config.readyThresholdMs, 300000)
      assert.strictEqual(config.pollIntervalMs, 30000)
      assert.deepStrictEqual(config.defaults, {
        runtime: "multiplexer",
        agent: "coding-agent",
        workspace: "worktree",
        notifiers: ["hosted", "desktop"],
        sessionMemoryMb: 1024
      })
      assert.deepStrictEqual(config.notifiers, {})
      assert.deepStrictEqual(config.notificationRouting, {
        urgent: ["desktop", "hosted"],
        action: ["desktop", "hosted"],
        warning: ["hosted"],
        info: ["hosted"]
      })
      assert.deepStrictEqual(config.reactions, DEFAULT_REACTIONS)
    }))

  it.effect("a minimal project gets every default of the spec", () =>
    Effect.gen(function*() {
      const app = (yield* valid({ projects: { "my-app": project({ path: "~/code/agent-orchestrator" }) } })).projects["my-app"]!
      assert.strictEqual(app.id, "agent-orchestrator")
      assert.strictEqual(app.key, "my-app")
      assert.strictEqual(app.name, "my-app")
      assert.strictEqual(app.path, "/home/u/code/agent-orchestrator")
      assert.strictEqual(app.defaultBranch, "main")
      assert.strictEqual(app.sessionPrefix, "ao")
      assert.strictEqual(app.runtime, "multiplexer")
      assert.strictEqual(app.agent, "coding-agent")
      assert.strictEqual(app.workspace, "worktree")
      assert.deepStrictEqual(app.tracker, { plugin: "repohost" })
      assert.deepStrictEqual(app.scm, { plugin: "repohost" })
      assert.deepStrictEqual(app.symlinks, [])
      assert.deepStrictEqual(app.postCreate, [])
      assert.deepStrictEqual(app.agentConfig, { permissions: "skip", quietMs: 3000 })
      assert.deepStrictEqual(app.reactions, {})
    }))

  it.effect("the default reactions are the spec's", () =>
    Effect.sync(() => {
      assert.deepInclude(DEFAULT_REACTIONS["ci-failed"], { auto: true, action: "send-to-agent", retries: 2, escalateAfter: 2 })
      assert.deepInclude(DEFAULT_REACTIONS["changes-requested"], { auto: true, action: "send-to-agent", escalateAfter: "30m" })
      assert.deepInclude(DEFAULT_REACTIONS["merge-conflicts"], { auto: true, action: "send-to-agent", escalateAfter: "15m" })
      assert.deepInclude(DEFAULT_REACTIONS["approved-and-green"], { auto: false, action: "notify", priority: "action" })
      assert.deepInclude(DEFAULT_REACTIONS["agent-stuck"], { auto: true, action: "notify", priority: "urgent", threshold: "10m" })
      assert.deepInclude(DEFAULT_REACTIONS["agent-needs-input"], { auto: true, action: "notify", priority: "urgent" })
      assert.deepInclude(DEFAULT_REACTIONS["agent-exited"], { auto: true, action: "notify", priority: "urgent" })
      assert.deepInclude(DEFAULT_REACTIONS["all-complete"], { auto: true, action: "notify", priority: "info", includeSummary: true })
      assert.match(DEFAULT_REACTIONS["ci-failed"].message!, /failing checks.*fix.*push/i)
    }))

  it.effect("getDefaultConfig has every default and no projects", () =>
    Effect.gen(function*() {
      const config = yield* getDefaultConfig().pipe(host)
      assert.deepStrictEqual(config.projects, {})
      assert.strictEqual(config.port, 3000)
      assert.deepStrictEqual(config.reactions, DEFAULT_REACTIONS)
    }))

  it.effect("explicit values win over defaults", () =>
    Effect.gen(function*() {
      const config = yield* valid({
        port: 8080,
        readyThresholdMs: 0,
        pollIntervalMs: 1000,
        defaults: { runtime: "process", notifiers: ["hosted"] },
        projects: {
          app: project({
            name: "App",
            defaultBranch: "trunk",
            sessionPrefix: "X_1",
            agent: "command",
            tracker: { plugin: "tracker-b", teamId: "T1", apiKey: "${GITHUB_TOKEN}" },
            agentConfig: { permissions: "default", model: "opus", command: "run-agent" }
          })
        }
      })
      const app = config.projects.app!
      assert.strictEqual(config.port, 8080)
      assert.strictEqual(config.readyThresholdMs, 0)
      assert.strictEqual(config.defaults.runtime, "process")
      assert.strictEqual(config.defaults.workspace, "worktree")
      assert.deepStrictEqual([app.name, app.defaultBranch, app.sessionPrefix, app.agent, app.runtime], [
        "App",
        "trunk",
        "X_1",
        "command",
        "process"
      ])
      assert.deepStrictEqual(app.tracker, { plugin: "tracker-b", teamId: "T1", apiKey: "ghp_x" })
      assert.deepStrictEqual(app.agentConfig, { permissions: "default", model: "opus", quietMs: 3000, command: "run-agent" })
    }))
})

describe("routing and reactions merge", () => {
  it.effect("a user's notificationRouting replaces priorities it names; the rest use defaults.notifiers", () =>
    Effect.gen(function*() {
      const config = yield* valid({
        defaults: { notifiers: ["hosted"] },
        notifiers: { hook: { plugin: "webhook", url: "${HOOK}" } },
        notificationRouting: { urgent: ["hook", "desktop"], info: [] },
        projects: {}
      })
      assert.deepStrictEqual(config.notificationRouting, {
        urgent: ["hook", "desktop"],
        action: ["hosted"],
        warning: ["hosted"],
        info: []
      })
      assert.deepStrictEqual(config.notifiers.hook, { plugin: "webhook", url: "https://hooks.example/x" })
    }))

  it.effect("a user's reaction replaces that default reaction; the others stay", () =>
    Effect.gen(function*() {
      const config = yield* valid({ projects: {}, reactions: { "ci-failed": { action: "notify", priority: "warning" } } })
      assert.deepStrictEqual(config.reactions["ci-failed"], { auto: true, action: "notify", priority: "warning" })
      assert.deepStrictEqual(config.reactions["agent-stuck"], DEFAULT_REACTIONS["agent-stuck"])
    }))

  it.effect("a project's reactions override the global ones field by field", () =>
    Effect.gen(function*() {
      const config = yield* valid({
        projects: { app: project({ reactions: { "ci-failed": { retries: 5 }, "agent-stuck": { threshold: "1h" } } }) }
      })
      const reactions = projectReactions(config, config.projects.app!)
      assert.deepStrictEqual(reactions["ci-failed"], { ...DEFAULT_REACTIONS["ci-failed"], retries: 5 })
      assert.deepStrictEqual(reactions["agent-stuck"], { ...DEFAULT_REACTIONS["agent-stuck"], threshold: "1h" })
      assert.deepStrictEqual(config.reactions["ci-failed"], DEFAULT_REACTIONS["ci-failed"])
    }))
})

describe("paths", () => {
  it.effect("~/ expands in path, agentRulesFile and plugin paths; relative paths start at the config's directory", () =>
    Effect.gen(function*() {
      const config = yield* validateConfig({
        notifiers: { mine: { plugin: "mine", path: "./plugins/mine.js" } },
        projects: {
          app: project({ agentRulesFile: "~/rules.md", tracker: { plugin: "t", path: "~/t.js" } }),
          rel: { repo: "acme/rel", path: "../rel", agentRulesFile: "docs/RULES.md" }
        }
      }, { configPath: "/etc/orch/orchestrator.yaml" }).pipe(host)
      assert.strictEqual(config.projects.app!.agentRulesFile, "/home/u/rules.md")
      assert.strictEqual(config.projects.app!.tracker.path, "/home/u/t.js")
      assert.strictEqual(config.projects.rel!.path, "/etc/rel")
      assert.strictEqual(config.projects.rel!.agentRulesFile, "/etc/rel/docs/RULES.md")
      assert.strictEqual(config.notifiers.mine!.path, "/etc/orch/plugins/mine.js")
      assert.strictEqual(config.configPath, "/etc/orch/orchestrator.yaml")
    }))

  it.effect("a host's identityFile and ~/ in its sshOptions are this machine's files, from orch's home; its dataDir is the host's", () =>
    Effect.gen(function*() {
      const config = yield* validateConfig({
        hosts: {
          box: {
            ssh: "me@box",
            identityFile: "~/.ssh/id_box",
            sshOptions: { UserKnownHostsFile: "~/.ssh/known_hosts", Compression: "yes" },
            dataDir: "~/orch"
          },
          rel: { ssh: "me@rel", identityFile: "keys/rel" }
        },
        projects: { app: project() }
      }, { configPath: "/etc/orch/orchestrator.yaml" }).pipe(host)
      assert.deepStrictEqual(config.hosts.box, {
        ssh: { user: "me", hostname: "box" },
        identityFile: "/home/u/.ssh/id_box",
        sshOptions: { UserKnownHostsFile: "/home/u/.ssh/known_hosts", Compression: "yes" },
        dataDir: "~/orch"
      })
      assert.strictEqual(config.hosts.rel!.identityFile, "/etc/orch/keys/rel")
    }))
})

describe("validation issues", () => {
  it.effect.each(
    [
      [{}, ["projects: Required"]],
      [{ projects: { app: {} } }, ["projects.app.repo: Required", "projects.app.path: Required"]],
      [{ projects: { app: project({ repo: "just-a-name" }) } }, ["projects.app.repo: Expected \"owner/repo\""]],
      [{ projects: { app: project({ path: "" }) } }, ["projects.app.path: Expected a non-empty string"]],
      [{ projects: { app: project({ sessionPrefix: "has space" }) } }, ["projects.app.sessionPrefix: sessionPrefix must match [a-zA-Z0-9_-]+"]],
      [{ port: 0, projects: {} }, ["port: Expected a port number between 1 and 65535"]],
      [{ terminalPort: 70000, projects: {} }, ["terminalPort: Expected a port number between 1 and 65535"]],
      [{ directTerminalPort: "3003", projects: {} }, ["directTerminalPort: Expected number"]],
      [{ readyThresholdMs: -1, projects: {} }, ["readyThresholdMs: Expected a non-negative whole number"]],
      [{ pollIntervalMs: 999, projects: {} }, ["pollIntervalMs: Expected at least 1000 (milliseconds)"]],
      [{ prot: 3000, projects: {} }, ["prot: Unknown key \"prot\" (did you mean \"port\"?)"]],
      [{ defaults: { runtim: "process" }, projects: {} }, ["defaults.runtim: Unknown key \"runtim\" (did you mean \"runtime\"?)"]],
      [{ hosts: { box: { ssh: "me@box", identiyFile: "~/k" } }, projects: {} }, [
        "hosts.box.identiyFile: Unknown key \"identiyFile\" (did you mean \"identityFile\"?)"
      ]],
      [{ projects: { app: project({ agentRule: "x" }) } }, ["projects.app.agentRule: Unknown key \"agentRule\" (did you mean \"agentRules\"?)"]],
      [{ projects: {}, reactions: { "ci-fialed": { action: "notify" } } }, [
        "reactions.ci-fialed: Unknown reaction \"ci-fialed\" (did you mean \"ci-failed\"?)"
      ]],
      [{ projects: {}, reactions: { "ci-failed": { action: "notify", retry: 2 } } }, [
        "reactions.ci-failed.retry: Unknown key \"retry\" (did you mean \"retries\"?)"
      ]],
      [{ projects: {}, reactions: { "ci-failed": { action: "explode" } } }, [
        "reactions.ci-failed.action: Expected \"send-to-agent\" | \"notify\" | \"auto-merge\""
      ]],
      [{ projects: {}, reactions: { "ci-failed": { retries: 1 } } }, ["reactions.ci-failed.action: Required"]],
      [{ projects: {}, reactions: { "agent-stuck": { action: "notify", threshold: "ten minutes" } } }, [
        "reactions.agent-stuck.threshold: Expected a duration such as \"30s\", \"10m\" or \"2h\""
      ]],
      [{ projects: { app: project({ reactions: { "agent-rate-limited": { threshold: "0s" } } }) } }, [
        "projects.app.reactions.agent-rate-limited.threshold: Expected a duration above zero, such as \"30s\" or \"5m\""
      ]],
      [{ projects: {}, reactions: { "ci-failed": { action: "notify", escalateAfter: -2 } } }, [
        "reactions.ci-failed.escalateAfter: Expected a non-negative whole number"
      ]],
      [{ projects: {}, reactions: { "ci-failed": { action: "notify", priority: "critical" } } }, [
        "reactions.ci-failed.priority: Expected \"urgent\" | \"action\" | \"warning\" | \"info\""
      ]],
      [{ projects: { app: project({ reactions: { "agent-stuck": { treshold: "5m" } } }) } }, [
        "projects.app.reactions.agent-stuck.treshold: Unknown key \"treshold\" (did you mean \"threshold\"?)"
      ]],
      [{ projects: {}, notificationRouting: { urgnt: [] } }, ["notificationRouting.urgnt: Unknown priority \"urgnt\" (did you mean \"urgent\"?)"]],
      [{ projects: {}, notificationRouting: { urgent: ["slakc"] }, notifiers: { slack: { plugin: "chat" } } }, [
        "notificationRouting.urgent.0: Unknown notifier \"slakc\": add it under `notifiers` (did you mean \"slack\"?)"
      ]],
      [{ projects: {}, notifiers: { x: { url: "http://a" } } }, ["notifiers.x.plugin: Required"]],
      [{ projects: { app: project({ symlinks: ["../secret"] }) } }, ["projects.app.symlinks.0: Expected a path inside the project (relative, without \"..\")"]],
      [{ projects: { app: project({ tracker: "none", intake: { labels: ["orch"] } }) } }, [
        "projects.app.intake: intake asks the tracker for labelled issues, and this project has none (tracker: none)"
      ]],
      [{ projects: { app: project({ intake: { labels: [] } }) } }, ["projects.app.intake.labels: Expected at least one label"]],
      [{ projects: { app: project({ intake: { labels: ["orch"], lables: ["x"], pollIntervalMs: 86_400_001 } }) } }, [
        "projects.app.intake.lables: Unknown key \"lables\" (did you mean \"labels\"?)",
        "projects.app.intake.pollIntervalMs: Expected at most 86400000 (a day, in milliseconds)"
      ]],
      [{ projects: {}, intake: { labels: ["orch"] } }, ["intake: Unknown key \"intake\" (it is a project's key: write it under projects.<name>)"]],
      [{ projects: {}, defaults: { mergeTrain: true } }, [
        "defaults.mergeTrain: Unknown key \"mergeTrain\" (it is a project's key: write it under projects.<name>)"
      ]],
      [{ projects: {}, defaults: { agnt: "codex" } }, ["defaults.agnt: Unknown key \"agnt\" (did you mean \"agent\"?)"]],
      [{ projects: { app: project({ agentConfig: { permissions: "yolo" } }) } }, [
        "projects.app.agentConfig.permissions: Expected \"skip\" | \"auto-edit\" | \"default\""
      ]],
      [{ projects: { app: project({ tracker: { plugin: "tracker-b", apiKey: "${LINEAR_KEY}" } }) } }, [
        "projects.app.tracker.apiKey: Environment variable \"LINEAR_KEY\" is not set (write ${LINEAR_KEY:-default} to give a default)"
      ]],
      [{ projects: {}, plugins: { x: {} } }, ["plugins.x: Give `package` (an npm package name) or `path` (a file) for the plugin module"]],
      [{ projects: {}, plugins: { x: { package: "a", path: "b" } } }, ["plugins.x: Give either `package` or `path` for a plugin module, not both"]],
      [{ projects: {}, plugins: { x: { pakage: "a" } } }, ["plugins.x.pakage: Unknown key \"pakage\" (did you mean \"package\"?)"]],
      [{ projects: {}, notifiers: { n: { plugin: "n", package: "a", path: "b" } } }, [
        "notifiers.n: Give either `package` or `path` for a plugin module, not both"
      ]],
      [["not", "a", "map"], ["<root>: Expected a mapping of settings (with a `projects` key)"]],
      [{ projects: ["app"] }, ["projects: Expected object"]]
    ] as const
  )("%j", ([raw, expected]) =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* issuesOf(raw), [...expected])
    }))

  it.effect("every problem is reported at once, one line each in the spec's text form", () =>
    Effect.gen(function*() {
      const error = yield* validateConfig({ port: "x", projects: { a: {}, b: project({ extra: 1 }) } }).pipe(host, Effect.flip)
      assert.strictEqual(
        error.message,
        [
          "Validation error at \"projects.b.extra\": Unknown key \"extra\"",
          "Validation error at \"port\": Expected number",
          "Validation error at \"projects.a.repo\": Required",
          "Validation error at \"projects.a.path\": Required"
        ].join("\n")
      )
    }))
})

describe("agentConfig.env", () => {
  it.effect("a name no shell can set is refused, not dropped (the agent's shell sets its environment)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* issuesOf({ projects: { app: project({ agentConfig: { env: { OK_1: "x", "MY-VAR": "y", "1X": "z" } } }) } }), [
        "projects.app.agentConfig.env: Expected variable names of letters, digits and _ (not starting with a digit), not \"MY-VAR\", \"1X\""
      ])
    }))
})

describe("duplicates", () => {
  it.effect("two projects with the same directory name are a duplicate project id", () =>
    Effect.gen(function*() {
      const error = yield* validateConfig({
        projects: { one: project({ path: "/a/app" }), two: project({ path: "/b/app", sessionPrefix: "two" }) }
      }).pipe(host, Effect.flip)
      assert.instanceOf(error, DuplicateProjectIdError)
      assert.strictEqual(
        error.message,
        "Duplicate project ID detected: \"app\". Projects \"one\" (/a/app) and \"two\" (/b/app) have paths with the same " +
          "directory name, and a project's id is its directory name. Rename one directory."
      )
      assert.deepStrictEqual((error as DuplicateProjectIdError).paths, ["/a/app", "/b/app"])
    }))

  it.effect("two projects with the same prefix (explicit or generated) are a duplicate session prefix", () =>
    Effect.gen(function*() {
      const error = yield* validateConfig({
        projects: { one: project({ path: "/a/backend" }), two: project({ path: "/b/bacon" }) }
      }).pipe(host, Effect.flip)
      assert.instanceOf(error, DuplicateSessionPrefixError)
      assert.match(error.message, /^Duplicate session prefix detected: "bac"/)
      assert.match(error.message, /explicit `sessionPrefix`/)
    }))

  it.effect("an explicit prefix resolves the clash", () =>
    Effect.gen(function*() {
      const config = yield* valid({ projects: { one: project({ path: "/a/backend" }), two: project({ path: "/b/bacon", sessionPrefix: "bcn" }) } })
      assert.deepStrictEqual(Object.values(config.projects).map((p) => p.sessionPrefix), ["bac", "bcn"])
    }))
})
