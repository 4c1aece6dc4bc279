/**
 * A new user's machine for the packed `orch`: an empty HOME, a TMUX_TMPDIR where tmux never ran, no ORCH_*
 * variable, PATH = the install's bin + the system's; a repository whose `origin` is a GitHub URL (git takes it
 * to a local bare repository through a stand-in for ssh) and the repohost emulator serving that repository
 * with two open issues, as a GitHub Enterprise `apiUrl` would. Everything it started ends with the scope.
 */
import * as Effect from "effect/Effect"
import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { dirname, join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import type { OrchRun } from "./cli.ts"
import { tempDir } from "./host.ts"
import type { PackedInstall } from "./packed-install.ts"

const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

export const freshUser = (install: PackedInstall) =>
  Effect.gen(function*() {
    const root = yield* tempDir("orch-fresh-")
    const home = join(root, "home")
    const tmuxTmpdir = join(root, "tmux-tmp")
    mkdirSync(home)
    mkdirSync(tmuxTmpdir, { mode: 0o700 })
    const env: Record<string, string> = {
      HOME: home,
      // The user's node is on their PATH, wherever it is installed.
      PATH: [...new Set([install.bin, dirname(process.execPath), ...SYSTEM_PATH])].join(":"),
      TMUX_TMPDIR: tmuxTmpdir,
      LANG: "C.UTF-8",
      USER: userInfo().username
    }
    /** The server a user's own `tmux` talks to: tmux's default socket under TMUX_TMPDIR. */
    const socket = join(tmuxTmpdir, `tmux-${process.getuid!()}`, "default")
    const dataDir = join(home, ".orchestrator")

    // The user's repository, its origin on GitHub as orch sees it (`git remote get-url`). git reaches it over "ssh":
    // core.sshCommand is a stand-in that runs the command git asks for in a local directory of bare repositories.
    const githubDir = join(root, "github.com")
    const origin = join(githubDir, "acme", "app.git")
    const repo = join(root, "code", "app")
    const git = (cwd: string, ...args: Array<string>) => execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8", env }).trim()
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin], { env })
    const ssh = join(root, "github-ssh")
    writeFileSync(ssh, `#!/bin/sh\n[ "$1" = -G ] && exit 0\nfor command; do :; done\ncd '${githubDir}' && exec sh -c "$command"\n`, { mode: 0o755 })
    mkdirSync(repo, { recursive: true })
    git(repo, "init", "-q", "-b", "main")
    writeFileSync(join(repo, "README.md"), "# app\n")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-qm", "initial")
    git(repo, "remote", "add", "origin", "git@github.com:acme/app.git")
    git(repo, "config", "core.sshCommand", ssh)
    git(repo, "push", "-q", "-u", "origin", "main")

    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: origin }] })),
      (e) => Effect.promise(() => e.close())
    )
    emulator.addIssue("acme/app", { title: "Say hello", body: "Print hello." })
    emulator.addIssue("acme/app", { title: "Say goodbye", body: "Print goodbye." })

    /** Runs the installed `orch` (found on the user's PATH) in the repository, without blocking the emulator. */
    const orch = (args: ReadonlyArray<string>, cwd = repo): Effect.Effect<OrchRun> =>
      Effect.callback<OrchRun>((resume) => {
        const child = execFile("orch", args, { cwd, env, encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
          resume(Effect.succeed({ code, stdout, stderr }))
        })
        return Effect.sync(() => child.kill())
      })

    const tmux = (...args: Array<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env, stdio: ["ignore", "pipe", "ignore"] })
    const sessions = (): Array<string> => {
      try {
        return tmux("list-sessions", "-F", "#{session_name}").split("\n").filter(Boolean).sort()
      } catch {
        return []
      }
    }
    const screen = (sessionId: string) => {
      try {
        return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", `=${sessionId}:`)
      } catch {
        return ""
      }
    }
    const events = (): Array<Record<string, any>> =>
      existsSync(join(dataDir, "events.jsonl"))
        ? readFileSync(join(dataDir, "events.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line))
        : []
    const supervisorPid = (): number | undefined => {
      try {
        return (JSON.parse(readFileSync(join(dataDir, "supervisor.json"), "utf8")) as { pid: number }).pid
      } catch {
        return undefined
      }
    }
    /** Live processes running this install's orch: node with the installed script (a zombie has no command line). */
    const orchProcesses = (): Array<number> =>
      readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
        try {
          const script = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1] ?? ""
          return script.startsWith(install.bin) || script.startsWith(install.packageDir) ? [Number(pid)] : []
        } catch {
          return []
        }
      })

    // Whatever the test leaves running ends with it: orch processes, then the user's tmux server.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const pid of orchProcesses()) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // gone already
          }
        }
        try {
          tmux("kill-server")
        } catch {
          // no server
        }
      })
    )

    return { root, home, tmuxTmpdir, socket, dataDir, repo, origin, env, emulator, git, orch, tmux, sessions, screen, events, supervisorPid, orchProcesses }
  })
