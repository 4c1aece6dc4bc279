import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach } from "vitest"
import { runOrch } from "../support/cli.ts"

let dir: string
let home: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "orch-cli-"))
  home = mkdtempSync(join(tmpdir(), "orch-home-"))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(home, { recursive: true, force: true })
})
const orch = (args: Array<string>, env: Record<string, string> = {}) => runOrch(args, { cwd: dir, env: { HOME: home, ...env } })
const noStackTrace = (text: string) => assert.notMatch(text, /^\s+at /m)

describe("orch basics", () => {
  it("--version", () => {
    const run = orch(["--version"])
    assert.strictEqual(run.code, 0)
    assert.match(run.stdout, /^orch v\d+\.\d+\.\d+\n$/)
  })

  it("--help lists the commands", () => {
    const run = orch(["--help"])
    assert.strictEqual(run.code, 0)
    for (const command of ["start", "stop", "spawn", "batch-spawn", "status", "send", "session", "notify", "notifications", "init", "config"]) {
      assert.match(run.stdout, new RegExp(`^\\s+${command}\\s`, "m"), command)
    }
  })

  it("a usage error is exit 2 with a short message and no stack trace", () => {
    for (const args of [["--bogus"], ["config", "show", "--nope"], ["frobnicate"]]) {
      const run = orch(args)
      assert.strictEqual(run.code, 2, args.join(" "))
      assert.match(run.stderr, /^orch: /)
      assert.include(run.stderr, "--help` for usage")
      noStackTrace(run.stderr)
    }
  })
})

describe("orch init", () => {
  it("in a git repository with a GitHub-style origin, pre-fills its project; never overwrites without --force", () => {
    execFileSync("git", ["init", "-q", "-b", "trunk", dir])
    execFileSync("git", ["-C", dir, "remote", "add", "origin", "https://github.com/acme/rocket.git"])
    const first = orch(["init"])
    assert.strictEqual(first.code, 0, first.stderr)
    const file = join(dir, "orchestrator.yaml")
    const written = readFileSync(file, "utf8")
    assert.include(written, "repo: acme/rocket")
    assert.include(written, `path: ${dir}`)
    assert.include(written, "defaultBranch: trunk")

    writeFileSync(file, "# mine\n")
    const again = orch(["init"])
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, "already exists")
    assert.include(again.stderr, "--force")
    assert.strictEqual(readFileSync(file, "utf8"), "# mine\n")

    assert.strictEqual(orch(["init", "--force"]).code, 0)
    assert.include(readFileSync(file, "utf8"), "repo: acme/rocket")
    const validate = orch(["config", "validate"])
    assert.strictEqual(validate.code, 0, validate.stderr)
    assert.strictEqual(validate.stdout, `${file}: valid (1 project)\n`)
  })

  it("outside a repository writes nothing: one sentence, exit 1", () => {
    assert.deepStrictEqual(orch(["init"]), {
      code: 1,
      stdout: "",
      stderr:
        `orch: ${dir} is not in a git repository, and orch init writes a project for the repository it runs in; run it inside one (git init first for a new one)\n`
    })
    assert.isFalse(existsSync(join(dir, "orchestrator.yaml")))
  })
})

describe("orch config", () => {
  const write = (text: string) => writeFileSync(join(dir, "orchestrator.yaml"), text)

  it("validate prints every issue with its position, exit 2", () => {
    write("projects:\n  app:\n    repo: acme\n    pth: /x\n")
    const run = orch(["config", "validate"])
    assert.strictEqual(run.code, 2)
    const file = join(dir, "orchestrator.yaml")
    assert.strictEqual(
      run.stderr,
      [
        `orch: Validation error at "projects.app.pth": Unknown key "pth" (did you mean "path"?) (${file}:4:5)`,
        `Validation error at "projects.app.repo": Expected "owner/repo" (${file}:3:5)`,
        `Validation error at "projects.app.path": Required (${file}:2:3)`,
        ""
      ].join("\n")
    )
  })

  it("validate checks the built-in plugins' own keys too: every problem, exit 2", () => {
    write([
      "projects:",
      "  app:",
      "    repo: acme/app",
      "    path: /x",
      "    tracker: { plugin: tracker-b, teamId: ENG }",
      "    scm: { plugin: repohost, mergeMethod: fast-forward }",
      ""
    ].join("\n"))
    const run = orch(["config", "validate"])
    assert.strictEqual(run.code, 2)
    const file = join(dir, "orchestrator.yaml")
    assert.strictEqual(
      run.stderr,
      [
        `orch: Validation error at "projects.app.tracker.apiKey": required: a Linear API key, from the environment (apiKey: \${LINEAR_API_KEY}) (${file}:5:5)`,
        `Validation error at "projects.app.scm.mergeMethod": must be squash, merge or rebase, not "fast-forward" (${file}:6:30)`,
        ""
      ].join("\n")
    )
  })

  it("validate: a key the repohost scm or tracker does not read, and a project's key under defaults, each say what to write", () => {
    const file = join(dir, "orchestrator.yaml")
    for (
      const [line, said] of [
        [
          "    scm: { plugin: repohost, mergeMethd: rebase }",
          `"projects.app.scm.mergeMethd": unknown repohost scm key (did you mean "mergeMethod"?) (${file}:5:30)`
        ],
        ["    tracker: { plugin: repohost, tokn: x }", `"projects.app.tracker.tokn": unknown repohost tracker key (did you mean "token"?) (${file}:5:34)`]
      ]
    ) {
      write(["projects:", "  app:", "    repo: acme/app", "    path: /x", line, ""].join("\n"))
      const typo = orch(["config", "validate"])
      assert.strictEqual(typo.code, 2)
      assert.strictEqual(typo.stderr, `orch: Validation error at ${said}\n`)
    }
    write(["defaults: { mergeTrain: true }", "projects: {}", ""].join("\n"))
    const defaults = orch(["config", "validate"])
    assert.strictEqual(defaults.code, 2)
    assert.strictEqual(
      defaults.stderr,
      `orch: Validation error at "defaults.mergeTrain": Unknown key "mergeTrain" (it is a project's key: write it under projects.<name>) (${file}:1:13)\n`
    )
  })

  it("validate of a named file; a missing one is exit 2", () => {
    writeFileSync(join(dir, "other.yaml"), "projects: {}\n")
    assert.strictEqual(orch(["config", "validate", "other.yaml"]).stdout, `${join(dir, "other.yaml")}: valid (0 projects)\n`)
    const missing = orch(["config", "validate", "nope.yaml"])
    assert.strictEqual(missing.code, 2)
    assert.strictEqual(missing.stderr, `orch: Cannot read the config: ${join(dir, "nope.yaml")} does not exist\n`)
  })

  it("no config anywhere: exit 2 and where it looked", () => {
    const run = orch(["config", "show"])
    assert.strictEqual(run.code, 2)
    assert.include(run.stderr, join(home, ".orchestrator.yaml"))
    noStackTrace(run.stderr)
  })

  it("a YAML syntax error: one line with line and column, exit 2; ORCH_DEBUG=1 adds the cause", () => {
    write("projects:\n  app: [\n")
    const run = orch(["config", "validate"])
    assert.strictEqual(run.code, 2)
    assert.match(run.stderr, /^orch: .*orchestrator\.yaml:\d+:\d+: YAML syntax error: .+\n$/)
    const debug = orch(["config", "validate"], { ORCH_DEBUG: "1" })
    assert.isAbove(debug.stderr.split("\n").length, run.stderr.split("\n").length)
  })

  it("show prints the normalized config with secrets redacted", () => {
    write([
      "notifiers:",
      "  hook:",
      "    plugin: webhook",
      "    url: https://hooks.example/in",
      "    headers: { Authorization: \"Bearer ${HOOK_TOKEN}\" }",
      "  mail: { plugin: email, smtp: \"smtp://me:${SMTP_PASS}@mail.example:587\" }",
      "projects:",
      "  app: { repo: acme/app, path: ~/code/app, tracker: { plugin: tracker-b, apiKey: \"${LINEAR_KEY}\" } }",
      ""
    ].join("\n"))
    const env = { HOOK_TOKEN: "tok-123456", SMTP_PASS: "pw-7890", LINEAR_KEY: "lin-abcdef" }
    const yaml = orch(["config", "show"], env)
    assert.strictEqual(yaml.code, 0, yaml.stderr)
    const json = orch(["config", "show", "--json"], env)
    const shown = JSON.parse(json.stdout)
    assert.strictEqual(shown.projects.app.path, join(home, "code/app"))
    assert.strictEqual(shown.projects.app.sessionPrefix, "app")
    assert.strictEqual(shown.reactions["ci-failed"].retries, 2)
    assert.strictEqual(shown.notifiers.hook.url, "https://hooks.example/in")
    for (const secret of Object.values(env)) {
      assert.notInclude(yaml.stdout, secret)
      assert.notInclude(json.stdout, secret)
    }
  })

  it("show of a named file, as validate takes one; a missing one is exit 2", () => {
    writeFileSync(join(dir, "other.yaml"), "projects:\n  app: { repo: acme/app, path: /x/app }\n")
    const shown = orch(["config", "show", "other.yaml", "--json"])
    assert.strictEqual(shown.code, 0, shown.stderr)
    assert.strictEqual(JSON.parse(shown.stdout).configPath, join(dir, "other.yaml"))
    assert.deepStrictEqual(orch(["config", "show", "nope.yaml"]), {
      code: 2,
      stdout: "",
      stderr: `orch: Cannot read the config: ${join(dir, "nope.yaml")} does not exist\n`
    })
  })

  it("--wizard where there is no terminal: one sentence, exit 2, no escape codes", () => {
    assert.deepStrictEqual(orch(["init", "--wizard"]), {
      code: 2,
      stdout: "",
      stderr: "orch: --wizard asks for each argument in a terminal, and this is not one; give them on the command line (`orch <command> --help` lists them)\n"
    })
  })

  it("schema prints the checked-in JSON Schema", () => {
    const run = orch(["config", "schema"])
    assert.strictEqual(run.code, 0)
    assert.strictEqual(run.stdout, readFileSync("schema/orchestrator.schema.json", "utf8"))
  })
})

describe("one check of a config: validate, doctor and spawn say the same, before anything is done", () => {
  /** A config with two misspelt plugin names in app, and web's `command` agent without its command line. */
  const typos = () => {
    const file = join(dir, "orchestrator.yaml")
    writeFileSync(
      file,
      [
        "projects:",
        "  app:",
        "    repo: acme/app",
        `    path: ${join(dir, "app")}`,
        "    agent: comand",
        "    runtime: tmuxx",
        "    tracker: none",
        "  web:",
        "    repo: acme/web",
        `    path: ${join(dir, "web")}`,
        "    agent: command",
        "    tracker: none",
        "    scm: none",
        ""
      ].join("\n")
    )
    return file
  }
  const AGENTS = "the built-in ones are coding-agent, codex, aider and command; another one is a plugin module, named under `plugins`"
  const RUNTIMES = "the built-in ones are multiplexer and process; another one is a plugin module, named under `plugins`"
  const COMMAND = "Required: the command line the agent runs (agent `command` runs any command line, so it needs one)"

  it("validate: every problem with file:line:col, exit 2", () => {
    const file = typos()
    assert.deepStrictEqual(orch(["config", "validate"]), {
      code: 2,
      stdout: "",
      stderr: [
        `orch: Validation error at "projects.app.runtime": Unknown runtime plugin "tmuxx" (did you mean "multiplexer", which runs tmux?): ${RUNTIMES} (${file}:6:5)`,
        `Validation error at "projects.app.agent": Unknown agent plugin "comand" (did you mean "command"?): ${AGENTS} (${file}:5:5)`,
        `Validation error at "projects.web.agentConfig.command": ${COMMAND} (${file}:11:5)`,
        ""
      ].join("\n")
    })
  })

  it("doctor: a line per project for its plugins, failing with the same problems; no line for an agent that is not one", () => {
    const file = typos()
    writeFileSync(
      join(dir, "fine.yaml"),
      `projects:\n  web:\n    repo: acme/web\n    path: ${join(dir, "web")}\n    agent: command\n    agentConfig: { command: echo hi }\n`
    )
    const run = orch(["doctor", "--no-canary"])
    assert.strictEqual(run.code, 1, run.stdout)
    const lines = run.stdout.split("\n")
    assert.include(lines, `ok    config: ${file}: 2 projects`)
    assert.include(
      lines,
      `fail  project app: projects.app.runtime: Unknown runtime plugin "tmuxx" (did you mean "multiplexer", which runs tmux?): ${RUNTIMES} (${file}:6:5)`
    )
    assert.include(lines, `fail  project app: projects.app.agent: Unknown agent plugin "comand" (did you mean "command"?): ${AGENTS} (${file}:5:5)`)
    assert.include(lines, `fail  project web: projects.web.agentConfig.command: ${COMMAND} (${file}:11:5)`)
    assert.notMatch(run.stdout, /agent comand/)
    noStackTrace(run.stderr)

    const fine = orch(["doctor", "--no-canary"], { ORCH_CONFIG_PATH: join(dir, "fine.yaml") })
    assert.include(fine.stdout.split("\n"), "ok    project web: agent command, runtime multiplexer, workspace worktree, tracker repohost, scm repohost")
    assert.include(fine.stdout.split("\n"), "ok    agent command (echo hi): a shell command line (not looked up)")
  })

  it("spawn and start: refused before anything is done; spawn with its project's problems only", () => {
    const file = typos()
    assert.deepStrictEqual(orch(["spawn", "web", "--task", "Tidy up"]), {
      code: 2,
      stdout: "",
      stderr: `orch: Validation error at "projects.web.agentConfig.command": ${COMMAND} (${file}:11:5)\n`
    })
    const app = orch(["spawn", "app", "--task", "Tidy up"])
    assert.strictEqual(app.code, 2)
    assert.strictEqual(app.stderr.split("\n").filter((line) => line !== "").length, 2)
    assert.include(app.stderr, `Unknown agent plugin "comand"`)
    assert.isFalse(existsSync(join(home, ".orchestrator", "sessions")), "no session was begun")
    // start checks the whole config before a supervisor starts on it.
    const start = orch(["start", "web", "--no-open"])
    assert.strictEqual(start.code, 2)
    assert.strictEqual(start.stderr, orch(["config", "validate"]).stderr)
    assert.isFalse(existsSync(join(home, ".orchestrator", "supervisor.json")))
  })
})
