/**
 * What a merge train needs from the repohost, against the emulator over HTTP with real git: a merge state that
 * follows base and head (behind, dirty), `update-branch`, and checks that run again on every new head.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { CiVerdict, Emulator, EmulatorOptions } from "../../src/demo/emulator/server.ts"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { tempDir } from "../support/host.ts"
import { git, gitAsync, gitOk, makeRepo } from "../support/repo.ts"
import { webhookReceiver } from "../support/webhook-receiver.ts"

const REPO = "acme/app"

const emulatorOn = (origin: string, options: Partial<EmulatorOptions> & { readonly requireUpToDate?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startEmulator({ ...options, repos: [{ repo: REPO, gitDir: origin, requireUpToDate: options.requireUpToDate ?? false }] })),
    (e) => Effect.promise(e.close)
  )

const api = (emulator: Emulator, method: string, path: string, body?: unknown) =>
  Effect.promise(() =>
    fetch(`${emulator.url}/repos/${REPO}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(async (r) => ({
      status: r.status,
      body: await r.json() as any
    }))
  )

const graphPull = (emulator: Emulator, number: number) =>
  Effect.promise(() =>
    fetch(`${emulator.url}/graphql`, {
      method: "POST",
      body: JSON.stringify({
        query: `query($n: String!) { repository(owner: "acme", name: "app") { pullRequests(headRefName: $n, first: 1) { nodes {
          number mergeable mergeStateStatus headRefOid baseRefName baseRefOid
          commits(last: 1) { nodes { commit { oid statusCheckRollup { state } } } } } } } }`,
        variables: { n: emulator.pull(REPO, number)!.head }
      })
    }).then(async (r) => ((await r.json()) as any).data.repository.pullRequests.nodes[0])
  )

/** A commit on `branch` (made from `from`) writing `files`, pushed to the emulator's repository. */
const pushCommit = (path: string, branch: string, from: string, files: Record<string, string>, message: string) =>
  Effect.gen(function*() {
    git(path, "checkout", "-q", "-B", branch, from)
    for (const [file, content] of Object.entries(files)) writeFileSync(join(path, file), content)
    git(path, "add", ".")
    git(path, "commit", "-qm", message)
    yield* gitAsync(path, "push", "-q", "origin", `${branch}:${branch}`)
    return git(path, "rev-parse", "HEAD")
  })

const openPull = (emulator: Emulator, head: string) =>
  api(emulator, "POST", "/pulls", { head, base: "main", title: head }).pipe(Effect.map((r) => r.body.number as number))

const checkRuns = (emulator: Emulator, ref: string) =>
  api(emulator, "GET", `/commits/${encodeURIComponent(ref)}/check-runs`).pipe(Effect.map((r) => r.body.check_runs as Array<any>))

const sha = (gitDir: string, ref: string) => git(gitDir, "rev-parse", ref)

describe("the repohost emulator, for a merge train", () => {
  it.live("a PR behind its base is clean unless branches must be up to date; update-branch merges the base in, as GitHub does", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const hook = yield* webhookReceiver
      const emulator = yield* emulatorOn(origin, { webhooks: [{ url: hook.url, secret: "s" }] })
      const head0 = yield* pushCommit(path, "feat/a", "main", { "a.txt": "a\n" }, "add a")
      const number = yield* openPull(emulator, "feat/a")
      const main1 = yield* pushCommit(path, "main", "main", { "b.txt": "b\n" }, "add b on main")

      // Without the protection GitHub says nothing of being behind: the PR merges as it is.
      const unprotected = (yield* api(emulator, "GET", `/pulls/${number}`)).body
      expect(unprotected).toMatchObject({ mergeable: true, mergeable_state: "clean", head: { sha: head0 }, base: { ref: "main", sha: main1 } })

      emulator.setRequireUpToDate(REPO, true)
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: true, mergeable_state: "behind" })
      expect(yield* graphPull(emulator, number)).toMatchObject({
        mergeable: "MERGEABLE",
        mergeStateStatus: "BEHIND",
        headRefOid: head0,
        baseRefName: "main",
        baseRefOid: main1
      })
      expect(yield* api(emulator, "PUT", `/pulls/${number}/merge`, { sha: head0 })).toMatchObject({
        status: 405,
        body: { message: "Head branch is not up to date with the base branch." }
      })

      expect(yield* api(emulator, "PUT", `/pulls/${number}/update-branch`, { expected_head_sha: main1 })).toMatchObject({
        status: 422,
        body: { message: "expected head sha didn’t match current head ref." }
      })
      expect(sha(origin, "feat/a")).toBe(head0)
      const updated = yield* api(emulator, "PUT", `/pulls/${number}/update-branch`, { expected_head_sha: head0 })
      expect(updated).toEqual({ status: 202, body: { message: "Updating pull request branch.", url: `${emulator.url}/repos/${REPO}/pulls/${number}` } })

      // A real merge commit of the base into the head, on the head branch of the bare repository.
      const head1 = sha(origin, "feat/a")
      expect(git(origin, "rev-list", "--parents", "-n", "1", head1).split(" ")).toEqual([head1, head0, main1])
      expect(git(origin, "log", "-1", "--format=%s|%cn", head1)).toBe("Merge branch 'main' into feat/a|GitHub")
      expect(git(origin, "ls-tree", "--name-only", head1).split("\n")).toEqual(["README.md", "a.txt", "b.txt"])
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: true, mergeable_state: "clean", head: { sha: head1 } })
      expect(yield* checkRuns(emulator, head1)).toMatchObject([{ name: "ci", head_sha: head1, status: "completed", conclusion: "success" }])

      expect(yield* api(emulator, "PUT", `/pulls/${number}/update-branch`, {})).toMatchObject({
        status: 422,
        body: { message: "There are no new commits on the base branch." }
      })
      expect(yield* api(emulator, "PUT", `/pulls/${number}/merge`, { sha: head0 })).toMatchObject({
        status: 409,
        body: { message: "Head branch was modified. Review and try the merge again." }
      })
      const merged = yield* api(emulator, "PUT", `/pulls/${number}/merge`, { sha: head1 })
      expect(merged).toMatchObject({ status: 200, body: { merged: true } })
      expect(sha(origin, "main")).toBe(merged.body.sha)
      // The base moved too: CI runs on the default branch's new commit.
      expect(yield* checkRuns(emulator, "main")).toMatchObject([{ head_sha: merged.body.sha, status: "completed", conclusion: "success" }])

      yield* Effect.promise(emulator.settled)
      const got = hook.got.map((d) => ({ event: d.event, body: JSON.parse(d.body) }))
      const index = (predicate: (d: { event: string; body: any }) => boolean) => got.findIndex(predicate)
      const push = index((d) => d.event === "push" && d.body.ref === "refs/heads/feat/a" && d.body.before === head0 && d.body.after === head1)
      const synchronize = index((d) =>
        d.event === "pull_request" && d.body.action === "synchronize" && d.body.after === head1 && d.body.pull_request.head.sha === head1
      )
      const created = index((d) => d.event === "check_run" && d.body.action === "created" && d.body.check_run.head_sha === head1)
      const completed = index((d) => d.event === "check_run" && d.body.action === "completed" && d.body.check_run.head_sha === head1)
      expect([push, synchronize, created, completed].every((i) => i >= 0)).toBe(true)
      expect(push < synchronize && synchronize < created && created < completed).toBe(true)
      expect(got[created]!.body.check_run).toMatchObject({ status: "queued", conclusion: null, check_suite: { head_branch: "feat/a" } })
      expect(got.some((d) => d.event === "push" && d.body.ref === "refs/heads/main" && d.body.after === merged.body.sha)).toBe(true)
    }).pipe(Effect.scoped))

  it.live("a PR that conflicts with its base is dirty; update-branch refuses it; the agent's resolving push makes it mergeable again", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const emulator = yield* emulatorOn(origin)
      yield* pushCommit(path, "feat/c", "main", { "README.md": "# app\nfrom the branch\n" }, "branch readme")
      const number = yield* openPull(emulator, "feat/c")
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: true, mergeable_state: "clean" })

      // The base moves under the PR: git says the two no longer merge.
      yield* pushCommit(path, "main", "main", { "README.md": "# app\nfrom main\n" }, "main readme")
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: false, mergeable_state: "dirty" })
      expect(yield* graphPull(emulator, number)).toMatchObject({ mergeable: "CONFLICTING", mergeStateStatus: "DIRTY" })
      const head = sha(origin, "feat/c")
      expect(yield* api(emulator, "PUT", `/pulls/${number}/update-branch`, {})).toMatchObject({
        status: 422,
        body: { message: "merge conflict between base and head" }
      })
      expect(sha(origin, "feat/c")).toBe(head)
      expect(yield* api(emulator, "PUT", `/pulls/${number}/merge`, {})).toMatchObject({ status: 405, body: { message: "Pull Request is not mergeable" } })

      // The agent merges main, resolves and pushes: the head moved, so mergeability is computed again.
      git(path, "checkout", "-q", "feat/c")
      expect(gitOk(path, "merge", "-q", "main")).toBe(false)
      writeFileSync(join(path, "README.md"), "# app\nfrom main and the branch\n")
      git(path, "commit", "-qam", "resolve")
      yield* gitAsync(path, "push", "-q", "origin", "feat/c")
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: true, mergeable_state: "clean" })
      expect((yield* api(emulator, "PUT", `/pulls/${number}/update-branch`, {})).status).toBe(422)
      expect((yield* api(emulator, "PUT", `/pulls/${number}/merge`, {})).status).toBe(200)
    }).pipe(Effect.scoped))

  it.live("checks run again on every new head, scripted by the tree: two PRs green alone are red together once one is updated onto the other", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const emulator = yield* emulatorOn(origin, {
        requireUpToDate: true,
        ci: ({ files }) =>
          files.includes("x.txt") && files.includes("y.txt")
            ? { conclusion: "failure", title: "x and y together", text: "FAIL: x.txt and y.txt disagree" }
            : "success"
      })
      const x0 = yield* pushCommit(path, "feat/x", "main", { "x.txt": "x\n" }, "add x")
      const y0 = yield* pushCommit(path, "feat/y", "main", { "y.txt": "y\n" }, "add y")
      const px = yield* openPull(emulator, "feat/x")
      const py = yield* openPull(emulator, "feat/y")
      for (const number of [px, py]) expect((yield* api(emulator, "GET", `/pulls/${number}`)).body.mergeable_state).toBe("clean")

      expect((yield* api(emulator, "PUT", `/pulls/${px}/merge`, { sha: x0 })).status).toBe(200)
      expect(yield* checkRuns(emulator, "main")).toMatchObject([{ conclusion: "success" }])
      expect((yield* api(emulator, "GET", `/pulls/${py}`)).body.mergeable_state).toBe("behind")

      expect((yield* api(emulator, "PUT", `/pulls/${py}/update-branch`, { expected_head_sha: y0 })).status).toBe(202)
      const y1 = sha(origin, "feat/y")
      expect(yield* checkRuns(emulator, y1)).toMatchObject([{ head_sha: y1, conclusion: "failure", output: { title: "x and y together" } }])
      // A check result belongs to its head: the old head's run is still the green one it was.
      expect(yield* checkRuns(emulator, y0)).toMatchObject([{ head_sha: y0, conclusion: "success" }])
      expect((yield* api(emulator, "GET", `/pulls/${py}`)).body.mergeable_state).toBe("blocked")
      expect(yield* graphPull(emulator, py)).toMatchObject({
        mergeStateStatus: "BLOCKED",
        headRefOid: y1,
        commits: { nodes: [{ commit: { oid: y1, statusCheckRollup: { state: "FAILURE" } } }] }
      })
      expect(yield* api(emulator, "PUT", `/pulls/${py}/merge`, { sha: y1 })).toMatchObject({
        status: 405,
        body: { message: "Required status check \"ci\" is failing." }
      })
      expect(git(origin, "ls-tree", "--name-only", "main").split("\n")).toEqual(["README.md", "x.txt"])
    }).pipe(Effect.scoped))

  it.live("a check run is queued, then in progress while the rule decides, then completed", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const hook = yield* webhookReceiver
      let release: ((verdict: CiVerdict) => void) | undefined
      const emulator = yield* emulatorOn(origin, {
        webhooks: [{ url: hook.url, secret: "s" }],
        ci: ({ read }) => (read("slow.txt") === undefined ? "success" : new Promise<CiVerdict>((resolve) => (release = resolve)))
      })
      const head = yield* pushCommit(path, "feat/slow", "main", { "slow.txt": "slow\n" }, "slow")
      expect(yield* checkRuns(emulator, head)).toMatchObject([{ status: "in_progress", conclusion: null, completed_at: null }])
      expect(release).toBeDefined()
      release!({ conclusion: "failure", title: "slow failed" })
      yield* Effect.promise(emulator.idle)
      // The rule's own words, nothing invented beside them (a bare "failure" gets the demo's failing test).
      expect(yield* checkRuns(emulator, head)).toMatchObject([{
        status: "completed",
        conclusion: "failure",
        output: { title: "slow failed", summary: "", text: "" }
      }])
      const runs = hook.got.filter((d) => d.event === "check_run").map((d) => JSON.parse(d.body)).map((b) => [b.action, b.check_run.status])
      expect(runs).toEqual([["created", "queued"], ["completed", "completed"]])
    }).pipe(Effect.scoped))

  it.live("a CI rule that throws fails its check with the error in the log, and CI goes on for the next head", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const emulator = yield* emulatorOn(origin, {
        ci: ({ read }) => {
          if (read("boom.txt") !== undefined) throw new Error("the scenario has no rule for boom.txt")
          return "success"
        }
      })
      const boom = yield* pushCommit(path, "feat/boom", "main", { "boom.txt": "boom\n" }, "boom")
      expect(yield* checkRuns(emulator, boom)).toMatchObject([{
        status: "completed",
        conclusion: "failure",
        output: { title: "The CI rule failed", summary: "the scenario has no rule for boom.txt" }
      }])
      git(path, "rm", "-q", "boom.txt")
      git(path, "commit", "-qm", "no boom")
      yield* gitAsync(path, "push", "-q", "origin", "feat/boom")
      expect(yield* checkRuns(emulator, "feat/boom")).toMatchObject([{ status: "completed", conclusion: "success" }])
    }).pipe(Effect.scoped))

  it.live("with lazy mergeability a read after a move answers unknown and starts the job; the next read has the answer", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const emulator = yield* emulatorOn(origin, { mergeabilityDelayMs: 0 })
      yield* pushCommit(path, "feat/l", "main", { "README.md": "# app\nfrom the branch\n" }, "branch readme")
      // Creating the PR is its first look: the answer has no mergeability yet, and the job starts.
      const created = yield* api(emulator, "POST", "/pulls", { head: "feat/l", base: "main", title: "lazy" })
      expect(created).toMatchObject({ status: 201, body: { mergeable: null, mergeable_state: "unknown" } })
      const number: number = created.body.number
      yield* Effect.promise(emulator.idle)
      expect((yield* api(emulator, "GET", `/pulls/${number}`)).body).toMatchObject({ mergeable: true, mergeable_state: "clean" })

      yield* pushCommit(path, "main", "main", { "README.md": "# app\nfrom main\n" }, "main readme")
      expect(yield* graphPull(emulator, number)).toMatchObject({ mergeable: "UNKNOWN", mergeStateStatus: "UNKNOWN" })
      yield* Effect.promise(emulator.idle)
      expect(yield* graphPull(emulator, number)).toMatchObject({ mergeable: "CONFLICTING", mergeStateStatus: "DIRTY" })
      // A merge does not wait for the job: it computes what it acts on.
      expect((yield* api(emulator, "PUT", `/pulls/${number}/merge`, {})).status).toBe(405)
    }).pipe(Effect.scoped))

  it.live("compare: how far a head is ahead of and behind the base, and their merge base, as GitHub answers", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const emulator = yield* emulatorOn(origin)
      const main0 = sha(origin, "main")
      const head = yield* pushCommit(path, "feat/a", "main", { "a.txt": "a\n" }, "add a")
      expect((yield* api(emulator, "GET", `/compare/main...${head}`)).body).toMatchObject({
        status: "ahead",
        ahead_by: 1,
        behind_by: 0,
        base_commit: { sha: main0 },
        merge_base_commit: { sha: main0 }
      })
      const main1 = yield* pushCommit(path, "main", "main", { "b.txt": "b\n" }, "add b on main")
      expect((yield* api(emulator, "GET", `/compare/main...feat%2Fa`)).body).toMatchObject({
        status: "diverged",
        ahead_by: 1,
        behind_by: 1,
        base_commit: { sha: main1 },
        merge_base_commit: { sha: main0 }
      })
      expect((yield* api(emulator, "GET", `/compare/${head}...main`)).body).toMatchObject({ status: "diverged" })
      expect((yield* api(emulator, "GET", `/compare/main...${main0}`)).body).toMatchObject({ status: "behind", ahead_by: 0, behind_by: 1 })
      expect((yield* api(emulator, "GET", "/compare/main...main")).body).toMatchObject({ status: "identical" })
      expect((yield* api(emulator, "GET", "/compare/main...nope")).status).toBe(404)
    }).pipe(Effect.scoped))

  it.live("a PR can be closed without merging and opened again, as GitHub's update does; a merged one cannot be reopened", () =>
    Effect.gen(function*() {
      const { origin, path } = makeRepo(yield* tempDir("orch-emulator-"))
      const hook = yield* webhookReceiver
      const emulator = yield* emulatorOn(origin, { webhooks: [{ url: hook.url, secret: "s" }] })
      yield* pushCommit(path, "feat/c", "main", { "c.txt": "c\n" }, "add c")
      const number = yield* openPull(emulator, "feat/c")
      expect((yield* api(emulator, "PATCH", `/pulls/${number}`, { state: "closed" })).body).toMatchObject({ state: "closed", merged: false })
      expect((yield* api(emulator, "PATCH", `/pulls/${number}`, { state: "open", title: "c again" })).body).toMatchObject({ state: "open", title: "c again" })
      expect((yield* api(emulator, "PATCH", `/pulls/${number}`, { state: "shut" })).status).toBe(422)
      yield* Effect.promise(emulator.idle)
      const actions = hook.got.filter((d) => d.event === "pull_request").map((d) => JSON.parse(d.body).action)
      expect(actions).toEqual(["opened", "closed", "reopened"])
      expect((yield* api(emulator, "PUT", `/pulls/${number}/merge`, {})).status).toBe(200)
      expect((yield* api(emulator, "PATCH", `/pulls/${number}`, { state: "open" })).status).toBe(422)
    }).pipe(Effect.scoped))
})
