import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "yaml"
import { ORCH_BIN } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { makeRepo } from "../support/repo.ts"
import { ECHO_AGENT, userSandbox } from "../support/user-sandbox.ts"

describe("orch init --user: many repositories in the user-level config", () => {
  it.live("adds each repository to ~/.config/orchestrator/config.yaml, keeping the user's edits; then works from anywhere", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const first = yield* s.orch(["init", "--user"], { cwd: s.repo.path })
      assert.strictEqual(first.code, 0, first.stderr)
      assert.strictEqual(
        first.stdout,
        `Wrote your user config ${s.userConfigFile} (found from any directory) with project "app" (local/app); origin ${s.repo.origin} is not on a repohost: added with tracker: none and scm: none, so spawns look nothing up (use orch spawn app --task "…")\n`
      )
      assert.isFalse(existsSync(join(s.repo.path, "orchestrator.yaml")))

      // The user edits the file; a second repository, on GitHub, is added without losing that.
      const edited = readFileSync(s.userConfigFile, "utf8").replace("projects:\n", "# my own note about the projects\nprojects:\n")
        .replace(/^# port: 3000.*$/m, `port: ${s.ports.port}  # mine`)
        .replace("    scm: none\n", `    scm: none\n    agent: command\n    agentConfig:\n      command: ${JSON.stringify(ECHO_AGENT)}\n`) +
        `terminalPort: ${s.ports.terminalPort}\ndirectTerminalPort: ${s.ports.directTerminalPort}\n`
      writeFileSync(s.userConfigFile, edited)
      const web = makeRepo(s.root, "web")
      execFileSync("git", ["-C", web.path, "remote", "set-url", "origin", "git@github.com:acme/web.git"])
      const second = yield* s.orch(["init", "--global"], { cwd: web.path })
      assert.strictEqual(second.code, 0, second.stderr)
      assert.strictEqual(second.stdout, `Added project "web" (acme/web) to your user config ${s.userConfigFile}, keeping everything else in it\n`)
      const merged = readFileSync(s.userConfigFile, "utf8")
      assert.include(merged, "# my own note about the projects\nprojects:\n")
      // Only the new project's lines were written: the user's own lines are as they wrote them, spacing and all.
      assert.match(merged, /^port: \d+ {2}# mine$/m)
      for (const line of edited.split("\n").filter((l) => l.startsWith("#"))) assert.include(merged, line)
      assert.deepStrictEqual(Object.keys(parse(merged).projects), ["app", "web"])

      const again = yield* s.orch(["init", "--user"], { cwd: web.path })
      assert.deepStrictEqual(again, { code: 0, stdout: `${s.userConfigFile} already has this repository, as project "web"; nothing was changed\n`, stderr: "" })
      // Another repository in a directory of the same name: its id would be taken, so no key would do; the advice works.
      const twin = makeRepo(join(s.root, "elsewhere"), "web")
      const clash = yield* s.orch(["init", "--user"], { cwd: twin.path })
      assert.strictEqual(clash.code, 1)
      assert.strictEqual(
        clash.stderr,
        `orch: ${s.userConfigFile} was left as it was: its project "web" (${web.path}) has the same directory name, web, and a project's id is its directory ` +
          `name, so two may not share one; to add this repository, give its directory another name (mv ${twin.path} ${twin.path}-2) and run orch init --user in it again\n`
      )
      assert.strictEqual(readFileSync(s.userConfigFile, "utf8"), merged)
      renameSync(twin.path, `${twin.path}-2`)
      const followed = yield* s.orch(["init", "--user"], { cwd: `${twin.path}-2` })
      assert.strictEqual(followed.code, 0, followed.stderr)
      assert.include(followed.stdout, `Added project "web-2" (local/web-2) to your user config ${s.userConfigFile}, keeping everything else in it`)
      assert.deepStrictEqual(yield* s.orch(["config", "validate"]), { code: 0, stdout: `${s.userConfigFile}: valid (3 projects)\n`, stderr: "" })
      // A key taken by a repository of another directory name: added under the next free key, and said.
      const site = makeRepo(join(s.root, "nested"), "site")
      writeFileSync(s.userConfigFile, readFileSync(s.userConfigFile, "utf8").replace(/^ {2}web-2:$/m, "  site:"))
      const freeKey = yield* s.orch(["init", "--user"], { cwd: site.path })
      assert.strictEqual(freeKey.code, 0, freeKey.stderr)
      assert.match(
        freeKey.stdout,
        /^Added project "site-2" \(local\/site\) to your user config \S+ \(under "site-2": "site" is another repository's\), keeping everything else in it;/
      )
      assert.deepStrictEqual(Object.keys(parse(readFileSync(s.userConfigFile, "utf8")).projects), ["app", "web", "site", "site-2"])

      // Found from any directory: validate, and a task spawned with no warning on tmux's default socket.
      assert.deepStrictEqual(yield* s.orch(["config", "validate"]), { code: 0, stdout: `${s.userConfigFile}: valid (4 projects)\n`, stderr: "" })
      const spawned = yield* s.orch(["spawn", "app", "--task", "Tidy the README"])
      assert.deepStrictEqual(spawned, { code: 0, stdout: "app-1\n", stderr: "" })
      assert.deepStrictEqual(s.sessions(), ["app-1"])
      assert.strictEqual(s.record("app-1").configPath, s.userConfigFile)

      const nowhere = yield* s.orch(["init", "--user"])
      assert.deepStrictEqual(nowhere, {
        code: 1,
        stdout: "",
        stderr:
          `orch: ${s.elsewhere} is not in a git repository, and orch init writes a project for the repository it runs in; run it inside one (git init first for a new one)\n`
      })
    }), 60_000)

  it.live("without --user: asks in a terminal, never when stdin is not one; a local repository gets tracker: none", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      // Not a terminal: no question, the repository's own file, as before.
      const piped = yield* s.orch(["init"], { cwd: s.repo.path })
      assert.strictEqual(piped.code, 0, piped.stderr)
      assert.strictEqual(
        piped.stdout,
        `Wrote ${
          join(s.repo.path, "orchestrator.yaml")
        } with project "app" (local/app); origin ${s.repo.origin} is not on a repohost: added with tracker: none and scm: none, so spawns look nothing up (use orch spawn app --task "…")\n`
      )
      assert.deepInclude(parse(readFileSync(join(s.repo.path, "orchestrator.yaml"), "utf8")).projects.app, { tracker: "none", scm: "none", repo: "local/app" })
      assert.isFalse(existsSync(s.userConfigFile))

      // A terminal: a pane of a tmux server of the test's own.
      const outer = join(s.root, "outer.sock")
      yield* Effect.addFinalizer(() => Effect.sync(() => execFileSync("tmux", ["-S", outer, "kill-server"], { stdio: "ignore" })))
      const inTerminal = (cwd: string, answer: string) =>
        Effect.gen(function*() {
          const name = `init-${answer || "default"}`
          execFileSync("tmux", [
            "-S",
            outer,
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "200",
            "-y",
            "20",
            `cd ${cwd} && env HOME=${s.home} ${process.execPath} ${ORCH_BIN} init; echo "init exited $?"; sleep 60`
          ])
          const screen = () => execFileSync("tmux", ["-S", outer, "capture-pane", "-p", "-J", "-t", `=${name}:`], { encoding: "utf8" })
          yield* eventually("the question", () => screen().includes("[Y/n]"))
          execFileSync("tmux", ["-S", outer, "send-keys", "-t", `=${name}:`, answer, "Enter"])
          yield* eventually("init to finish", () => screen().includes("init exited"))
          return screen()
        })
      const api = makeRepo(s.root, "api")
      const yes = yield* inTerminal(api.path, "y")
      assert.include(
        yes,
        `Add "api" to your user config ~/.config/orchestrator/config.yaml (one file for all your repositories, found from any directory) instead of writing orchestrator.yaml here? [Y/n]`
      )
      assert.include(yes, "init exited 0")
      assert.deepStrictEqual(Object.keys(parse(readFileSync(s.userConfigFile, "utf8")).projects), ["api"])
      assert.isFalse(existsSync(join(api.path, "orchestrator.yaml")))

      const cli = makeRepo(s.root, "cli")
      const no = yield* inTerminal(cli.path, "n")
      assert.include(no, "init exited 0")
      assert.isTrue(existsSync(join(cli.path, "orchestrator.yaml")))
      assert.deepStrictEqual(Object.keys(parse(readFileSync(s.userConfigFile, "utf8")).projects), ["api"])

      // A repository whose own orchestrator.yaml is found first from there: added, with a note saying so.
      const shadowed = yield* s.orch(["init", "--user"], { cwd: s.repo.path })
      assert.strictEqual(shadowed.code, 0, shadowed.stderr)
      assert.include(
        shadowed.stdout,
        `Note: from here ${join(s.repo.path, "orchestrator.yaml")} is found first, so commands run here use it and not the user config\n`
      )
    }), 60_000)
})
