/** Which config a command acts under, said when it is not the one this directory gives (src/config/notice.ts); --wizard without a terminal. */
import { assert, describe, it } from "@effect/vitest"
import { wizardWithoutTerminal } from "../../src/cli/wizard.ts"
import { type ActingConfig, configNotice, shownPath } from "../../src/config/notice.ts"

const where = { cwd: "/home/me/code/app", homeDir: "/home/me" }
const USER = "/home/me/.config/orchestrator/config.yaml"
const REPO = "/home/me/code/app/orchestrator.yaml"

describe("the line a command prints about the config it acts under", () => {
  it.each<[string, ActingConfig, string | undefined, string | undefined]>([
    ["the supervisor serves the file found here: nothing to say", { _tag: "Supervisor", path: REPO }, REPO, undefined],
    [
      "the supervisor serves the user config, a repository file is found here",
      { _tag: "Supervisor", path: USER },
      REPO,
      `using the running supervisor's config ${USER}, not ./orchestrator.yaml`
    ],
    [
      "the supervisor serves a repository's file, the user config is found here",
      { _tag: "Supervisor", path: "/srv/web/orchestrator.yaml" },
      USER,
      "using the running supervisor's config /srv/web/orchestrator.yaml, not ~/.config/orchestrator/config.yaml"
    ],
    [
      "no config is found here",
      { _tag: "Supervisor", path: REPO },
      undefined,
      `using the running supervisor's config ${REPO}, as no config is found from here`
    ],
    [
      "the file a session was spawned under",
      { _tag: "Session", path: REPO, sessionId: "app-3" },
      USER,
      `using ${REPO}, the config app-3 was spawned under, not ~/.config/orchestrator/config.yaml`
    ],
    [
      "a file in a parent directory is shown as it is",
      { _tag: "Supervisor", path: USER },
      "/home/me/code/orchestrator.yaml",
      `using the running supervisor's config ${USER}, not ~/code/orchestrator.yaml`
    ]
  ])("%s", (_, acting, here, expected) => {
    assert.strictEqual(configNotice(acting, here, where), expected)
  })
})

describe("a path as a person reads it from where the command runs", () => {
  it.each<[string, string, { cwd: string; homeDir: string }, string]>([
    ["a file below the working directory", "/home/me/code/app/orchestrator.yaml", where, "./orchestrator.yaml"],
    ["home itself is the working directory", USER, { cwd: "/home/me", homeDir: "/home/me" }, "./.config/orchestrator/config.yaml"],
    ["a file under home, seen from a sibling directory", USER, where, "~/.config/orchestrator/config.yaml"],
    [
      "a file under home, seen from a directory above home: never a ./ path climbing into home",
      "/tmp/trial/home/.config/orchestrator/config.yaml",
      { cwd: "/tmp", homeDir: "/tmp/trial/home" },
      "~/.config/orchestrator/config.yaml"
    ],
    ["a file under home, seen from / ", USER, { cwd: "/", homeDir: "/home/me" }, "~/.config/orchestrator/config.yaml"],
    ["a file below the working directory outside home", "/srv/web/orchestrator.yaml", { cwd: "/srv", homeDir: "/home/me" }, "./web/orchestrator.yaml"],
    ["a file neither here nor under home", "/srv/web/orchestrator.yaml", where, "/srv/web/orchestrator.yaml"],
    ["no home known", "/srv/web/orchestrator.yaml", { cwd: "/srv/web", homeDir: "" }, "./orchestrator.yaml"]
  ])("%s", (_, path, from, expected) => {
    assert.strictEqual(shownPath(path, from), expected)
  })
})

describe("--wizard needs a terminal", () => {
  it.each<[ReadonlyArray<string>, boolean, boolean]>([
    [["init", "--wizard"], false, true],
    [["init", "--wizard"], true, false],
    [["init"], false, false],
    [["spawn", "app", "--task", "x", "--", "--wizard"], false, false]
  ])("%j in a terminal: %s → refused: %s", (argv, terminal, refused) => {
    assert.strictEqual(wizardWithoutTerminal(argv, terminal), refused)
  })
})
