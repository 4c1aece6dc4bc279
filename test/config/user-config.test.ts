import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { parse } from "yaml"
import { remoteKind } from "../../src/config/remote.ts"
import { type InitProject, renderInitConfig } from "../../src/config/template.ts"
import { addProjectToConfigText, tildePath, userConfigFile } from "../../src/config/user-config.ts"
import { getDefaultConfig, validateConfig } from "../../src/config/validate.ts"
import { withHost } from "../support/host.ts"

const HOME = "/home/me"
const FILE = "/home/me/.config/orchestrator/config.yaml"
const rocket: InitProject = { key: "rocket", repo: "acme/rocket", path: "/home/me/code/rocket", defaultBranch: "main" }
const notes: InitProject = { key: "notes", repo: "local/notes", path: "/srv/notes", defaultBranch: "trunk", local: true }
const add = (text: string, project: InitProject) => addProjectToConfigText(text, FILE, project, HOME)
const added = (text: string, project: InitProject) => {
  const result = add(text, project)
  assert.strictEqual(result._tag, "Added")
  return result._tag === "Added" ? result.text : ""
}

describe("adding a project to a user config", () => {
  it.each<[string, string, InitProject, Record<string, unknown>]>([
    ["an empty file", "", rocket, { rocket: { repo: "acme/rocket", path: "~/code/rocket", defaultBranch: "main" } }],
    ["only comments", "# my orch settings\n", rocket, { rocket: { repo: "acme/rocket", path: "~/code/rocket", defaultBranch: "main" } }],
    ["projects: {}", "port: 3100\nprojects: {}\n", notes, {
      notes: { repo: "local/notes", path: "/srv/notes", defaultBranch: "trunk", tracker: "none", scm: "none" }
    }],
    ["an empty projects key", "projects:\n", rocket, { rocket: { repo: "acme/rocket", path: "~/code/rocket", defaultBranch: "main" } }],
    [
      "one project already",
      "projects:\n  api:\n    repo: acme/api\n    path: ~/code/api\n",
      notes,
      {
        api: { repo: "acme/api", path: "~/code/api" },
        notes: { repo: "local/notes", path: "/srv/notes", defaultBranch: "trunk", tracker: "none", scm: "none" }
      }
    ]
  ])("%s", (_, text, project, projects) => {
    assert.deepStrictEqual(parse(added(text, project)).projects, projects)
  })

  it.each<[string, string, string]>([
    [
      "`projects:` with nothing, then another key",
      "projects:\nport: 3100 # mine\n",
      "projects:\n  rocket:\n    repo: acme/rocket\n    path: ~/code/rocket\n    defaultBranch: main\nport: 3100 # mine\n"
    ],
    [
      "`projects: {}`",
      "port: 3100   # mine\nprojects: {}\n",
      "port: 3100   # mine\nprojects:\n  rocket:\n    repo: acme/rocket\n    path: ~/code/rocket\n    defaultBranch: main\n"
    ],
    [
      "four-space indentation, and no newline at the end",
      "projects:\n    api:\n        repo: acme/api\n        path: ~/code/api",
      "projects:\n    api:\n        repo: acme/api\n        path: ~/code/api\n    rocket:\n        repo: acme/rocket\n        path: ~/code/rocket\n        defaultBranch: main\n"
    ],
    [
      "no `projects` at all: at the end",
      "port: 3100 # mine",
      "port: 3100 # mine\nprojects:\n  rocket:\n    repo: acme/rocket\n    path: ~/code/rocket\n    defaultBranch: main\n"
    ]
  ])("written as lines of its own: %s", (_, text, expected) => {
    assert.strictEqual(added(text, rocket), expected)
  })

  it("keeps the user's comments, layout and other settings byte for byte: only the new lines are written", () => {
    const text = [
      "# My orch settings: keep this comment",
      "port: 3100   # not 3000, that one is taken",
      "",
      "projects:",
      "  # the API",
      "  api:",
      "    repo: acme/api",
      "    path: ~/code/api",
      "    # sessionPrefix: api",
      "",
      "# notifiers:",
      "#   team-chat:",
      "#     plugin: chat",
      ""
    ].join("\n")
    assert.strictEqual(
      added(text, rocket),
      [
        "# My orch settings: keep this comment",
        "port: 3100   # not 3000, that one is taken",
        "",
        "projects:",
        "  # the API",
        "  api:",
        "    repo: acme/api",
        "    path: ~/code/api",
        "    # sessionPrefix: api",
        "  rocket:",
        "    repo: acme/rocket",
        "    path: ~/code/rocket",
        "    defaultBranch: main",
        "",
        "# notifiers:",
        "#   team-chat:",
        "#     plugin: chat",
        ""
      ].join("\n")
    )
  })

  it.effect("into orch init's own template, the result still loads with both projects", () =>
    Effect.gen(function*() {
      const template = renderInitConfig(yield* getDefaultConfig(), { ...rocket, path: "~/code/rocket" })
      const merged = added(template, notes)
      for (const line of template.split("\n").filter((l) => l.startsWith("#"))) assert.include(merged, line)
      const config = yield* validateConfig(parse(merged)).pipe(withHost({ homeDir: HOME }))
      assert.deepStrictEqual(Object.keys(config.projects), ["rocket", "notes"])
      assert.deepStrictEqual(config.projects.notes!.tracker, { plugin: "none" })
    }))

  it.each<[string, string, InitProject, string]>([
    ["the same path, as ~/", "projects:\n  mine:\n    repo: a/b\n    path: ~/code/rocket\n", rocket, "AlreadyThere mine"],
    ["the same path, absolute", "projects:\n  rocket:\n    repo: a/b\n    path: /home/me/code/rocket\n", rocket, "AlreadyThere rocket"],
    [
      "the key, for a directory of another name: added under the next free key",
      "projects:\n  rocket:\n    repo: a/b\n    path: ~/old/rocket2\n  rocket-2:\n    repo: a/c\n    path: ~/old/c\n",
      rocket,
      "Added rocket-3"
    ],
    [
      "the directory name, under another key",
      "projects:\n  old:\n    repo: a/b\n    path: ~/old/rocket\n",
      rocket,
      "Refused its project \"old\" (~/old/rocket) has the same directory name, rocket, and a project's id is its directory name, so two may not share one"
    ],
    ["not YAML", "projects: [\n", rocket, "Refused it is not valid YAML"],
    ["not a mapping", "- a\n- b\n", rocket, "Refused it is not a mapping of settings"],
    ["projects not a mapping", "projects: [a]\n", rocket, "Refused its `projects` is not a mapping"]
  ])("%s", (_, text, project, expected) => {
    const result = add(text, project)
    const got = result._tag === "AlreadyThere" ? `AlreadyThere ${result.key}` : result._tag === "Refused" ? `Refused ${result.reason}` : `Added ${result.key}`
    assert.isTrue(got.startsWith(expected), got)
  })

  it("which file: the first home-level one that exists, else the XDG one; ~ for paths under home", () => {
    assert.strictEqual(userConfigFile(HOME, () => false), FILE)
    assert.strictEqual(userConfigFile(HOME, (p) => p === "/home/me/.orchestrator.yml"), "/home/me/.orchestrator.yml")
    assert.strictEqual(tildePath("/home/me/code/x", HOME), "~/code/x")
    assert.strictEqual(tildePath("/home/meet/x", HOME), "/home/meet/x")
  })
})

describe("is the origin on GitHub", () => {
  it.each<[string | undefined, string]>([
    ["https://github.com/acme/rocket.git", "GitHub acme/rocket"],
    ["git@github.com:acme/rocket.git", "GitHub acme/rocket"],
    ["ssh://git@github.acme.internal:2222/acme/rocket", "GitHub acme/rocket"],
    ["https://git.corp.example/acme/rocket.git", "GitHub acme/rocket"],
    ["http://127.0.0.1:4000/acme/rocket.git", "GitHub acme/rocket"],
    ["git@bitbucket.org:acme/rocket.git", "Local origin is on bitbucket.org, not GitHub"],
    ["https://gitlab.example.org/acme/rocket", "Local origin is on gitlab.example.org, not GitHub"],
    [undefined, "Local no origin remote"],
    ["/srv/git/rocket.git", "Local origin /srv/git/rocket.git is not on a repohost"],
    ["file:///srv/git/rocket.git", "Local origin file:///srv/git/rocket.git is not on a repohost"],
    ["https://gitlab.com/acme/rocket.git", "Local origin is on gitlab.com, not GitHub"],
    ["../rocket/x.git", "Local origin ../rocket/x.git is not on a repohost"]
  ])("%s", (origin, expected) => {
    const kind = remoteKind(origin)
    assert.strictEqual(kind._tag === "GitHub" ? `GitHub ${kind.repo}` : `Local ${kind.reason}`, expected)
  })
})
