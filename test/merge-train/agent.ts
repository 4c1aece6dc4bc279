/**
 * The merge-train bench's scripted agent, run by the `command` agent plugin (`node agent.ts --api URL`): it makes
 * its issue's change (scenario.ts), commits, pushes and opens a pull request through the repohost's API. Told of a
 * conflict, a needed rebase or a failing check, it does what a careful person does: starts again from the default
 * branch as it is now, makes its change there and force-pushes; if that changes nothing of its pull request, it
 * says the failure is not its own and waits. A predicted conflict (a warning of what may come) it only notes.
 * As a project's orchestrator it only listens.
 */
import { execFileSync } from "node:child_process"
import { appendFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { directoryTree, REPO, TASKS } from "./scenario.ts"

const api = process.argv[process.argv.indexOf("--api") + 1] ?? ""
const env = process.env
const workspace = env.ORCH_WORKSPACE ?? process.cwd()
const branch = env.ORCH_BRANCH ?? ""

const say = (text: string) => console.log(`● agent ${text}`)
const activity = (value: "active" | "ready") => {
  if (env.ORCH_ACTIVITY_FILE) appendFileSync(env.ORCH_ACTIVITY_FILE, `${JSON.stringify({ ts: new Date().toISOString(), activity: value })}\n`)
}
const git = (...args: Array<string>) =>
  execFileSync("git", ["-C", workspace, "-c", "user.name=Agent", "-c", "user.email=agent@bench.invalid", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()

/** Makes the task's change on the worktree as it is and commits it; false when that changed nothing. */
const commitChange = (apply: (tree: ReturnType<typeof directoryTree>) => void, message: string) => {
  apply(directoryTree(workspace))
  git("add", "-A", "--", "src", "CHANGELOG.md")
  if (git("diff", "--cached", "--name-only") === "") return false
  git("commit", "-q", "-m", message)
  return true
}

const task = TASKS.find((t) => String(t.issue) === env.ORCH_ISSUE_ID)

const worker = async (work: NonNullable<typeof task>) => {
  activity("active")
  commitChange(work.apply, work.title)
  git("push", "-q", "origin", `HEAD:refs/heads/${branch}`)
  const response = await fetch(`${api}/repos/${REPO}/pulls`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/vnd.github+json" },
    body: JSON.stringify({ title: work.title, head: branch, base: "main", body: `Closes #${work.issue}` })
  })
  const pull = (await response.json()) as { number?: number; message?: string }
  say(response.ok ? `opened PR #${pull.number}` : `could not open a PR: ${pull.message}`)
  activity("ready")

  /** Starts again from the default branch as it is now; pushes only when that gives the pull request a new tree. */
  const redo = () => {
    // Into refs of its own: the sessions' worktrees share one repository, whose origin/* refs others fetch at once.
    const main = `refs/bench-agent/${branch}/main`
    const head = `refs/bench-agent/${branch}/head`
    git("fetch", "-q", "--refmap=", "origin", `+refs/heads/main:${main}`, `+refs/heads/${branch}:${head}`)
    git("reset", "-q", "--hard", main)
    if (!commitChange(work.apply, work.title)) return say("my change is already on main; nothing to push")
    if (git("rev-parse", "HEAD^{tree}") === git("rev-parse", `${head}^{tree}`)) {
      git("reset", "-q", "--hard", head)
      return say("my change on today's main is what the pull request already has: the failure is not mine")
    }
    git("push", "-q", "-f", "origin", `HEAD:refs/heads/${branch}`)
    say(`made my change again on main and pushed ${git("rev-parse", "--short", "HEAD")}`)
  }

  // A message arrives as the lines typed together; act once per message, after a short quiet.
  let timer: NodeJS.Timeout | undefined
  let text = ""
  createInterface({ input: process.stdin }).on("line", (line) => {
    text += `${line}\n`
    clearTimeout(timer)
    timer = setTimeout(() => {
      const message = text
      text = ""
      activity("active")
      try {
        // A predicted conflict (its lines) is a warning of what may come once the other merges: nothing to do yet.
        // Messages typed close together arrive as one, so each line is read for itself.
        const asks = message.split("\n").filter((line) => !/predicts|^Collides with|would conflict|^- /i.test(line))
        if (asks.some((line) => /conflict|rebase|fail|behind|up to date/i.test(line))) redo()
        else say(`noted: ${message.split("\n")[0]}`)
      } catch (error) {
        say(`could not do that: ${error instanceof Error ? error.message : String(error)}`)
      }
      activity("ready")
    }, 300)
  })
}

if (task === undefined) {
  say(env.ORCH_ISSUE_ID === "orchestrator" ? "orchestrator: listening" : `no task for issue ${env.ORCH_ISSUE_ID}; waiting`)
  activity("ready")
  createInterface({ input: process.stdin }).on("line", () => {})
} else {
  void worker(task)
}
