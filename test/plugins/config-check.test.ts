/** The one check of a config's plugins (src/plugins/config-check.ts, choice.ts): pure tables, then the check over a real file. */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { stringify } from "yaml"
import type { OrchestratorConfig, ProjectConfig } from "../../src/config/schema.ts"
import { validateConfig } from "../../src/config/validate.ts"
import { choosePlugin, unknownPluginMessage } from "../../src/plugins/choice.ts"
import { checkProject, loadCheckedConfig } from "../../src/plugins/config-check.ts"
import { tempDir, withHost } from "../support/host.ts"

const HOME = "/home/me"

/** A config as the file's own check leaves it, from what a user writes. */
const normalized = (raw: Record<string, unknown>) => Effect.runSync(validateConfig(raw).pipe(withHost({ homeDir: HOME, cwd: "/srv", env: {} })))

const project = (fields: Record<string, unknown>) => ({ repo: "acme/app", path: "/srv/app", tracker: "none", scm: "none", ...fields })

const problems = (raw: Record<string, unknown>, key = "app") => {
  const config: OrchestratorConfig = normalized(raw)
  const check = checkProject(config, config.projects[key] as ProjectConfig, raw)
  return {
    issues: check.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    modules: check.modules.map((module) => `${module.slot} ${module.name} at ${module.where.join(".")}`)
  }
}

const BUILTIN_AGENTS = "the built-in ones are coding-agent, codex, aider and command; another one is a plugin module, named under `plugins`"

describe("a project's plugins, checked from the config alone", () => {
  it.each<[string, Record<string, unknown>, ReadonlyArray<string>]>([
    ["all built-ins, with what they need: nothing to say", { projects: { app: project({ agent: "command", agentConfig: { command: "my-agent" } }) } }, []],
    [
      "a merge train with scm repohost: nothing to say",
      { projects: { app: project({ agent: "command", agentConfig: { command: "x" }, scm: "repohost", mergeTrain: true }) } },
      []
    ],
    [
      "a merge train without an scm that can run one",
      { projects: { app: project({ agent: "command", agentConfig: { command: "x" }, mergeTrain: true }) } },
      ["projects.app.mergeTrain: needs `scm: repohost`: the merge train brings PRs up to date and merges them through the repohost's API, which the scm `none` does not offer"]
    ],
    [
      "a misspelt agent: the nearest name",
      { projects: { app: project({ agent: "comand", agentConfig: { command: "x" } }) } },
      [`projects.app.agent: Unknown agent plugin "comand" (did you mean "command"?): ${BUILTIN_AGENTS}`]
    ],
    [
      "an agent named by its program",
      { projects: { app: project({ agent: "claude" }) } },
      [`projects.app.agent: Unknown agent plugin "claude" (did you mean "coding-agent", which runs claude?): ${BUILTIN_AGENTS}`]
    ],
    [
      "a runtime named by its program, misspelt",
      { projects: { app: project({ runtime: "tmuxx" }) } },
      [
        "projects.app.runtime: Unknown runtime plugin \"tmuxx\" (did you mean \"multiplexer\", which runs tmux?): the built-in ones are multiplexer and process; another one is a plugin module, named under `plugins`"
      ]
    ],
    [
      "a misspelt default: said where it is written",
      { defaults: { agent: "codx" }, projects: { app: project({}) } },
      [`defaults.agent: Unknown agent plugin "codx" (did you mean "codex"?): ${BUILTIN_AGENTS}`]
    ],
    [
      "agent command without its command line",
      { projects: { app: project({ agent: "command" }) } },
      ["projects.app.agentConfig.command: Required: the command line the agent runs (agent `command` runs any command line, so it needs one)"]
    ],
    [
      "agent command with a blank command line",
      { projects: { app: project({ agent: "command", agentConfig: { command: "  " } }) } },
      ["projects.app.agentConfig.command: Expected the command line the agent runs (agent `command` runs any command line, so it needs one)"]
    ],
    [
      "a program agent given an empty program",
      { projects: { app: project({ agent: "codex", agentConfig: { command: "" } }) } },
      ["projects.app.agentConfig.command: Expected the program to run instead of codex: a path, or a name on PATH"]
    ],
    [
      "an unknown tracker, the plugin modules listed",
      { plugins: { "my-runtime": { path: "/p/r.mjs" } }, projects: { app: project({ tracker: "jira" }) } },
      [
        "projects.app.tracker.plugin: Unknown tracker plugin \"jira\": the built-in ones are repohost, tracker-b and none; plugin modules under `plugins`: my-runtime"
      ]
    ],
    [
      "tracker-b without its team: the key",
      { projects: { app: project({ tracker: { plugin: "tracker-b", apiKey: "k" } }) } },
      ["projects.app.tracker.teamId: required: the Linear team's key (e.g. ENG) or id"]
    ],
    [
      "the repohost scm's merge method",
      { projects: { app: project({ scm: { plugin: "repohost", mergeMethod: "ff" } }) } },
      ["projects.app.scm.mergeMethod: must be squash, merge or rebase, not \"ff\""]
    ],
    [
      "a key the repohost scm does not read, with a did-you-mean",
      { projects: { app: project({ scm: { plugin: "repohost", mergeMethd: "rebase" } }) } },
      ["projects.app.scm.mergeMethd: unknown repohost scm key (did you mean \"mergeMethod\"?)"]
    ],
    [
      "a key the repohost tracker does not read, with a did-you-mean",
      { projects: { app: project({ tracker: { plugin: "repohost", apiURL: "http://x" } }) } },
      ["projects.app.tracker.apiURL: unknown repohost tracker key (did you mean \"apiUrl\"?)"]
    ],
    [
      "the repohost tracker's own keys pass",
      { projects: { app: project({ tracker: { plugin: "repohost", apiUrl: "http://x", token: "t" } }) } },
      []
    ],
    [
      "the repohost scm's own keys pass",
      { projects: { app: project({ scm: { plugin: "repohost", apiUrl: "http://x", token: "t", webhookSecret: "s", mergeMethod: "rebase" } }) } },
      []
    ],
    [
      "several at once, in the order of the slots",
      { projects: { app: project({ runtime: "proces", agent: "command", scm: "nope" }) } },
      [
        "projects.app.runtime: Unknown runtime plugin \"proces\" (did you mean \"process\"?): the built-in ones are multiplexer and process; another one is a plugin module, named under `plugins`",
        "projects.app.agentConfig.command: Required: the command line the agent runs (agent `command` runs any command line, so it needs one)",
        "projects.app.scm.plugin: Unknown scm plugin \"nope\" (did you mean \"none\"?): the built-in ones are repohost and none; another one is a plugin module, named under `plugins`"
      ]
    ]
  ])("%s", (_, raw, expected) => {
    assert.deepStrictEqual(problems(raw).issues, expected)
  })

  it("plugin modules are listed to import, not judged here: named under `plugins` (even over a built-in's name), or the slot's own", () => {
    const raw = {
      plugins: { "my-agent": { path: "/p/agent.mjs" }, process: { package: "orch-runtime-mine" } },
      projects: { app: project({ agent: "my-agent", runtime: "process", tracker: { plugin: "jira", path: "/p/jira.mjs", site: "x" } }) }
    }
    assert.deepStrictEqual(problems(raw), {
      issues: [],
      modules: ["runtime process at plugins.process.package", "agent my-agent at plugins.my-agent.path", "tracker jira at projects.app.tracker.path"]
    })
  })
})

describe("which plugin a name stands for", () => {
  const config = { plugins: { mine: { path: "/p/mine.mjs" } } }
  it.each<[string, ReturnType<typeof choosePlugin>["_tag"], Parameters<typeof choosePlugin>]>([
    ["a built-in", "Builtin", [config, "runtime", "process"]],
    ["a module under plugins", "Module", [config, "agent", "mine"]],
    ["the slot's own package", "Module", [config, "tracker", "repohost", { settings: { package: "x" }, where: ["projects", "a", "tracker"] }]],
    ["a built-in notifier", "Builtin", [config, "notifier", "webhook"]],
    ["nothing", "Unknown", [config, "workspace", "worktre"]]
  ])("%s", (_, tag, args) => {
    assert.strictEqual(choosePlugin(...args)._tag, tag)
  })

  it("an unknown name far from every known one gets no guess", () => {
    assert.strictEqual(
      unknownPluginMessage("workspace", "zzzzzzzz", []),
      "Unknown workspace plugin \"zzzzzzzz\": the built-in ones are worktree and clone; another one is a plugin module, named under `plugins`"
    )
  })
})

describe("the check over a file: every problem where it is written, only the projects asked about", () => {
  it.effect("a module with another manifest, a notifier that cannot be made, a typo: each with file:line:col; a spawn's scope sees its project's only", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const file = join(dir, "orchestrator.yaml")
      writeFileSync(
        file,
        stringify({
          plugins: { "my-agent": { path: resolve("test/fixtures/plugins/fixture-agent.mjs") } },
          notifiers: { hook: { plugin: "webhook", url: "not a url" } },
          projects: {
            app: { repo: "acme/app", path: join(dir, "app"), agent: "my-agent", tracker: "none", scm: "none" },
            web: { repo: "acme/web", path: join(dir, "web"), agent: "comand", tracker: "none", scm: "none" }
          }
        })
      )
      const lines = (yield* Effect.flip(loadCheckedConfig(file))).message.split("\n")
      const lineOf = (text: string) => readFileSync(file, "utf8").split("\n").findIndex((line) => line.includes(text)) + 1
      assert.deepStrictEqual(lines, [
        `Validation error at "plugins.my-agent.path": plugin module ${
          resolve("test/fixtures/plugins/fixture-agent.mjs")
        }: its manifest is named "fixture-agent", but the config calls it "my-agent" (${file}:${lineOf("path: /")}:5)`,
        `Validation error at "projects.web.agent": Unknown agent plugin "comand" (did you mean "command"?): the built-in ones are coding-agent, codex, aider and command; plugin modules under \`plugins\`: my-agent (${file}:${
          lineOf("agent: comand")
        }:5)`,
        `Validation error at "notifiers.hook": \`url\` is not a valid URL: "not a url" (${file}:${lineOf("hook:")}:3)`
      ])
      // A spawn for web: web's problem only (no module of app's imported, no notifier made).
      const web = (yield* Effect.flip(loadCheckedConfig(file, { projects: ["web"] }))).message
      assert.strictEqual(web, lines[1])
    }).pipe(withHost({ homeDir: HOME, env: {} }), Effect.provide(NodeServices.layer)))
})
