/**
 * The scripted sequences the explorer crashes: each a few orch commands (run from the repository, as a user
 * would), receipts to wait for between them (never a fixed sleep), and config edits. Session ids (`app-1`) are
 * those an uninterrupted run gets; after a crash the explorer runs no further step.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { admittedIssues, agentsStarted, events, started } from "./observe.ts"
import { workFile, type World, type WorldOptions } from "./world.ts"

export type Step =
  /** `orch <args>`: `start` starts the supervisor; `queue add`, `batch-spawn` and `spawn` confirm their issues with exit 0. */
  | { readonly _tag: "Orch"; readonly args: ReadonlyArray<string> }
  /** A receipt: waits until `until` holds (or the crash happened). */
  | { readonly _tag: "Wait"; readonly what: string; readonly until: (world: World) => boolean }
  /** Saves orchestrator.yaml with a new top-level maxSessions (a running supervisor reloads it). */
  | { readonly _tag: "SetMaxSessions"; readonly maxSessions: number }
  /** Host `b` dies: its sshd and every process of its user are killed. */
  | { readonly _tag: "HostDown" }
  /** What a person or an agent does outside orch (commits, pushes, PRs, reviews at the repohost). */
  | { readonly _tag: "Outside"; readonly what: string; readonly run: (world: World) => Promise<void> }

export interface Scenario {
  readonly name: string
  readonly description: string
  readonly world: WorldOptions
  readonly steps: ReadonlyArray<Step>
}

const orch = (...args: Array<string>): Step => ({ _tag: "Orch", args })
const start = orch("start", "app", "--detach", "--no-open")
const waitFor = (what: string, until: (world: World) => boolean): Step => ({ _tag: "Wait", what, until })
const admitted = (...issues: Array<string>) =>
  waitFor(`issue(s) ${issues.join(", ")} admitted and their agents started`, (world) => {
    const done = admittedIssues(world)
    return issues.every((issue) => done.includes(issue)) && agentsStarted(world, issues)
  })
/** Each of `issues` admitted, dropped, or said to wait by an admission round (admission.json). */
const decided = (...issues: Array<string>) =>
  waitFor(`an admission round's word on issue(s) ${issues.join(", ")}`, (world) => {
    const waiting = Object.keys((world.readJson(join(world.dataDir, "admission.json")) as { waiting?: object } | undefined)?.waiting ?? {})
    const queue = (world.readJson(join(world.dataDir, "queue.json")) as { entries?: Array<{ id: string; issue?: string }> } | undefined)?.entries ?? []
    const ended = events(world).filter((e) => e.type === "queue.admitted" || e.type === "queue.dropped").map((e) => e.issueId)
    return issues.every((issue) => ended.includes(issue) || queue.some((e) => e.issue === issue && waiting.includes(e.id)))
  })
const agentOf = (...issues: Array<string>) => waitFor(`the agents of issue(s) ${issues.join(", ")} started`, (world) => agentsStarted(world, issues))
const startedTimes = (sessionId: string, times: number) =>
  waitFor(`the agent of ${sessionId} started ${times} time(s)`, (world) => started(world).filter((s) => s.sessionId === sessionId).length >= times)

const killRestore = (supervised: boolean): ReadonlyArray<Step> => [
  ...(supervised ? [start] : []),
  orch("spawn", "app", "1"),
  agentOf("1"),
  orch("session", "kill", "app-1"),
  orch("session", "restore", "app-1"),
  startedTimes("app-1", 2)
]

const pushAsync = (world: World, cwd: string, branch: string) =>
  new Promise<void>((resolve, reject) =>
    execFile("git", ["-C", cwd, "push", "-q", "origin", `HEAD:${branch}`], { env: world.env }, (error) => (error ? reject(error) : resolve()))
  )

/**
 * The agents' work as a PR each, approved: in each session's worktree a commit of its work file (the agent's unsaved
 * notes stay uncommitted), pushed to its branch, a PR opened on the emulator, approved.
 */
const pullRequestsOf = (...issues: Array<string>): Step => ({
  _tag: "Outside",
  what: `a PR approved for each of issue(s) ${issues.join(", ")}`,
  run: async (world) => {
    for (const issue of issues) {
      const record = world.readJson(join(world.dataDir, "sessions", "app", `app-${issue}`, "session.json")) as { workspacePath: string; branch: string }
      writeFileSync(join(record.workspacePath, workFile(issue)), `the work of issue ${issue}\n`)
      world.git(record.workspacePath, "add", workFile(issue))
      world.git(record.workspacePath, "commit", "-qm", `work on issue ${issue}`)
      // Asynchronously: the push's hook tells the emulator, which runs in this process.
      await pushAsync(world, record.workspacePath, record.branch)
      const answer = await fetch(`${world.emulator.url}/repos/acme/app/pulls`, {
        method: "POST",
        body: JSON.stringify({ head: record.branch, base: "main", title: `Issue ${issue}`, body: `Closes #${issue}` })
      })
      const { number } = (await answer.json()) as { number: number }
      world.emulator.review("acme/app", number, "APPROVED")
    }
  }
})
/** Every PR of `issues` merged, or out of the train with `train.left`. */
const trainDone = (...issues: Array<string>) =>
  waitFor(`the PRs of issue(s) ${issues.join(", ")} merged or out of the train`, (world) => {
    const ended = events(world).filter((e) => e.type === "train.merged" || e.type === "train.left").map((e) => e.sessionId)
    return issues.every((issue) => ended.includes(`app-${issue}`))
  })

export const SCENARIOS: ReadonlyArray<Scenario> = [
  {
    name: "queue-admit",
    description: "queue add with maxSessions 1 and a queue rm; the supervisor admits",
    world: { issues: 5, maxSessions: 1 },
    steps: [start, orch("queue", "add", "app", "1", "2", "3", "4"), orch("queue", "rm", "4"), admitted("1")]
  },
  {
    name: "queue-side-by-side",
    description: "queue add of 4 through the supervisor with maxSessions 3: three start side by side",
    world: { issues: 5, maxSessions: 3 },
    steps: [start, orch("queue", "add", "app", "1", "2", "3", "4"), admitted("1", "2", "3")]
  },
  {
    name: "queue-offline",
    description: "queue add with no supervisor (maxSessions 2); orch start admits",
    world: { issues: 4, maxSessions: 2 },
    steps: [orch("queue", "add", "app", "1", "2", "3"), start, admitted("1", "2")]
  },
  {
    name: "queue-task",
    description: "queue add --task and an issue with no supervisor (maxSessions 2); orch start admits both",
    world: { issues: 2, maxSessions: 2 },
    steps: [orch("queue", "add", "app", "--task", "Write the changelog"), orch("queue", "add", "app", "1"), start, agentOf("write-the-changelog", "1")]
  },
  {
    name: "spawn",
    description: "spawn with no supervisor, then orch start, then spawn through the supervisor",
    world: { issues: 3 },
    steps: [orch("spawn", "app", "1"), start, orch("spawn", "app", "2"), agentOf("1", "2")]
  },
  {
    name: "batch-spawn",
    description: "batch-spawn of 4 with maxSessions 2: 2 start, 2 queue",
    world: { issues: 5, maxSessions: 2 },
    steps: [start, orch("batch-spawn", "app", "1", "2", "3", "4"), agentOf("1", "2")]
  },
  {
    name: "batch-spawn-offline",
    description: "batch-spawn of 4 with maxSessions 2 and no supervisor, a kill; orch start admits the next",
    world: { issues: 5, maxSessions: 2 },
    steps: [orch("batch-spawn", "app", "1", "2", "3", "4"), agentOf("1", "2"), orch("session", "kill", "app-1")]
  },
  {
    name: "kill-restore",
    description: "spawn, kill with unsaved work, restore, through the supervisor",
    world: { issues: 2 },
    steps: killRestore(true)
  },
  {
    name: "kill-restore-offline",
    description: "spawn, kill with unsaved work, restore, with no supervisor",
    world: { issues: 2 },
    steps: killRestore(false)
  },
  {
    name: "stop-kill",
    description: "orch stop --kill-sessions with entries waiting (maxSessions 1)",
    world: { issues: 4, maxSessions: 1 },
    steps: [start, orch("queue", "add", "app", "1", "2", "3"), admitted("1"), orch("stop", "--kill-sessions")]
  },
  {
    name: "host-down",
    description: "the project's host b dies with a session on it, then more issues are queued (needs root: real sshd)",
    world: { issues: 4, remoteHost: true },
    steps: [start, orch("queue", "add", "app", "1"), admitted("1"), { _tag: "HostDown" }, orch("queue", "add", "app", "2", "3"), decided("2", "3")]
  },
  {
    name: "config-reload",
    description: "maxSessions raised from 1 to 3 in orchestrator.yaml while entries wait",
    world: { issues: 4, maxSessions: 1 },
    steps: [start, orch("queue", "add", "app", "1", "2", "3"), admitted("1"), { _tag: "SetMaxSessions", maxSessions: 3 }, admitted("1", "2", "3")]
  },
  {
    name: "conflicts",
    description: "two sessions commit conflicting files; the supervisor predicts the conflict and tells the later one",
    world: { issues: 2, commits: true },
    steps: [
      start,
      orch("spawn", "app", "1"),
      orch("spawn", "app", "2"),
      agentOf("1", "2"),
      waitFor("the predicted conflict told", (world) => events(world).some((e) => e.type === "reaction.triggered" && e.data?.key !== undefined))
    ]
  },
  {
    name: "merge-train",
    description: "3 sessions' PRs approved and green with mergeTrain: 1 and 2 red together; the train merges 1 (or 2) and 3, the other leaves",
    world: { issues: 3, mergeTrain: true },
    steps: [
      start,
      orch("spawn", "app", "1"),
      orch("spawn", "app", "2"),
      orch("spawn", "app", "3"),
      agentOf("1", "2", "3"),
      pullRequestsOf("1", "2", "3"),
      trainDone("1", "2", "3")
    ]
  }
]

export const scenarioNamed = (name: string): Scenario => {
  const found = SCENARIOS.find((s) => s.name === name)
  if (found === undefined) throw new Error(`no scenario ${name}; there are ${SCENARIOS.map((s) => s.name).join(", ")}`)
  return found
}
