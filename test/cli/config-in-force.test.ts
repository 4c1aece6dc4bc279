/**
 * Which config is in force, said out loud, on the default path (the built CLI, a fresh HOME, an empty TMUX_TMPDIR, no
 * ORCH_* variable): `orch init` says what a new file would shadow and does not quietly take over from the user config;
 * a command that runs under the running supervisor's config says so where another one is found; a session whose
 * project left the config shows as `unwatched` in `orch status` and the dashboard, with what to do.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { stringify } from "yaml"
import { eventually } from "../support/eventually.ts"
import { makeRepo } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"

describe("which config is in force, said out loud", () => {
  it.live(
    "init refuses to shadow the user config that has the repository; spawn says it runs under the supervisor's; unwatched sessions",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        const other = makeRepo(s.root, "other")
        const writeUserConfig = (projects: Record<string, unknown>) => {
          mkdirSync(dirname(s.userConfigFile), { recursive: true })
          writeFileSync(s.userConfigFile, stringify({ ...s.ports, projects }))
        }
        writeUserConfig({ app: s.project() })
        const repoFile = join(s.repo.path, "orchestrator.yaml")
        const inRepo = { cwd: s.repo.path }

        // The user config has this repository: a file here would take over from it here, so init does not write one.
        assert.deepStrictEqual(yield* s.orch(["init"], inRepo), {
          code: 1,
          stdout: "",
          stderr: "orch: ~/.config/orchestrator/config.yaml already has this repository, as project \"app\", and an orchestrator.yaml here would be " +
            "found before it from this repository (while a supervisor started on it keeps it); nothing was written: edit that file, or run " +
            "orch init --force to write one here anyway\n"
        })
        assert.isFalse(existsSync(repoFile))

        // A supervisor on the user config; then a repository file after all, said as what it shadows.
        const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
        assert.strictEqual(started.code, 0, started.stderr)
        const forced = yield* s.orch(["init", "--force"], inRepo)
        assert.strictEqual(forced.code, 0, forced.stderr)
        assert.include(
          forced.stdout,
          `Note: commands run in this repository now use ${repoFile}, not ~/.config/orchestrator/config.yaml, which was found from here before ` +
            "(it still has this repository, as project \"app\")\n"
        )

        // In the repository, spawns go to the supervisor, which serves the user config: each says so (the full CLI and
        // the fast path alike).
        const says = `orch: using the running supervisor's config ${s.userConfigFile}, not ./orchestrator.yaml\n`
        assert.deepStrictEqual(yield* s.orch(["spawn", "app", "--task", "Tidy the README"], inRepo), { code: 0, stdout: "app-1\n", stderr: says })
        assert.deepStrictEqual(yield* s.orch(["spawn", "app", "2"], inRepo), { code: 0, stdout: "app-2\n", stderr: says })
        // Where the user config is the one found, nothing to say.
        assert.deepStrictEqual(yield* s.orch(["send", "app-1", "hello"]), { code: 0, stdout: "delivered to app-1\n", stderr: "" })
        const doctor = yield* s.orch(["doctor", "--no-canary"], inRepo)
        assert.include(
          doctor.stdout,
          `warn  supervisor: it serves ${s.userConfigFile}, not ${repoFile} checked above: spawn, send, start and the other commands that act use ${s.userConfigFile} (edit that file: it applies without a restart)\n`
        )

        // The project leaves the config while its sessions run: they show as unwatched, with what to do.
        writeUserConfig({ other: s.project({ repo: "acme/other", path: other.path }) })
        yield* eventually("the new config applied", () => s.events().some((event) => event.type === "config.applied"))
        const status = yield* s.orch(["status"])
        assert.strictEqual(status.code, 0, status.stderr)
        assert.match(status.stdout, /^app-1 .* unwatched /m)
        assert.match(status.stdout, /^app-2 .* unwatched /m)
        const line = status.stdout.split("\n").find((text) => text.includes(" are unwatched: "))
        assert.isDefined(line, status.stdout)
        assert.include(line!, "app-1")
        assert.include(line!, "app-2")
        assert.include(
          line!,
          ` are unwatched: project app is not in ${s.userConfigFile}, so nothing probes them or reacts for them; add the project back to that file ` +
            "(it applies without a restart) to watch them again, or end them with `orch session kill "
        )
        const json = yield* s.orch(["status", "--json"])
        const rows = JSON.parse(json.stdout) as Array<{ sessionId: string; status: string; recorded: boolean }>
        assert.deepInclude(rows.find((row) => row.sessionId === "app-1"), { status: "unwatched", recorded: true })
        assert.include(json.stderr, `orch: warning: ${line}`)

        // The dashboard shows them so too.
        const { dashboardUrl } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { dashboardUrl: string }
        const api = new URL(dashboardUrl)
        api.pathname = "/api/sessions"
        const sessions = yield* Effect.promise(() => fetch(api).then((response) => response.json() as Promise<Array<{ sessionId: string; status: string }>>))
        assert.strictEqual(sessions.find((record) => record.sessionId === "app-1")?.status, "unwatched")

        // Put back: watched again.
        writeUserConfig({ app: s.project(), other: s.project({ repo: "acme/other", path: other.path }) })
        yield* eventually("the project back", () => s.events().filter((event) => event.type === "config.applied").length >= 2)
        const back = yield* s.orch(["status"])
        assert.notMatch(back.stdout, /unwatched/)
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      }),
    120_000
  )
})
