/**
 * The demo's scripted agent (`dist/demo-agent.mjs`, run by the `command` agent plugin): it writes the code its
 * issue asks for, commits, pushes, opens a pull request through the repohost's API, and then does what orch's
 * messages on its terminal ask: fixes CI when told it failed, addresses review comments. It reports its
 * activity through $ORCH_ACTIVITY_FILE like a real agent's hooks. As a project's orchestrator it just listens.
 *
 *   node demo-agent.mjs --api <repohost API URL> --repo <owner/name>
 */
import { execFileSync } from "node:child_process"
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { DEMO_ISSUES } from "./scenario.ts"

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const api = arg("api") ?? ""
const repo = arg("repo") ?? ""
const env = process.env
const workspace = env.ORCH_WORKSPACE ?? process.cwd()

const say = (text: string) => console.log(`\x1b[1;36m● agent\x1b[0m ${text}`)
const activity = (value: "active" | "ready") => {
  if (env.ORCH_ACTIVITY_FILE) appendFileSync(env.ORCH_ACTIVITY_FILE, `${JSON.stringify({ ts: new Date().toISOString(), activity: value })}\n`)
}
const git = (...args: Array<string>) => execFileSync("git", ["-C", workspace, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const PACE = Number(env.ORCH_DEMO_PACE_MS ?? "600")

const write = (file: string, content: string) => {
  mkdirSync(dirname(join(workspace, file)), { recursive: true })
  writeFileSync(join(workspace, file), content)
}
const commitAndPush = (message: string) => {
  git("add", "-A")
  git("commit", "-q", "-m", message)
  git("push", "-q", "origin", `HEAD:refs/heads/${env.ORCH_BRANCH}`)
  say(`pushed ${git("rev-parse", "--short", "HEAD")} "${message}"`)
}

/** Collects a pasted multi-line message: the lines that arrive together, until a short quiet. */
const messages = (onMessage: (text: string) => Promise<void>) => {
  let lines: Array<string> = []
  let timer: NodeJS.Timeout | undefined
  let busy = Promise.resolve()
  createInterface({ input: process.stdin }).on("line", (line) => {
    lines.push(line)
    clearTimeout(timer)
    timer = setTimeout(() => {
      const text = lines.join("\n")
      lines = []
      busy = busy.then(() => onMessage(text)).catch((error: unknown) => say(`could not do that: ${error instanceof Error ? error.message : String(error)}`))
    }, 300)
  })
}

const orchestrator = () => {
  say("I am this demo's orchestrator session. The supervisor does the work; watch the other sessions.")
  activity("ready")
  messages(async (text) => say(`noted: ${text.split("\n")[0]}`))
}

const worker = async () => {
  const number = Number(env.ORCH_ISSUE_ID)
  const issue = DEMO_ISSUES[number - 1]
  if (issue === undefined) {
    say(`no script for issue ${env.ORCH_ISSUE_ID}; waiting`)
    return messages(async () => {})
  }
  activity("active")
  say(`task: ${readFileSync(env.ORCH_PROMPT_FILE ?? "/dev/null", "utf8").split("\n").find((line) => line.trim() !== "") ?? issue.title}`)
  await pause(PACE)
  say(`writing ${issue.file}`)
  write(issue.file, issue.draft)
  await pause(PACE)
  commitAndPush(issue.title)
  const response = await fetch(`${api}/repos/${repo}/pulls`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/vnd.github+json" },
    body: JSON.stringify({ title: issue.title, head: env.ORCH_BRANCH, base: "main", body: `Closes #${number}\n\n${issue.body}` })
  })
  const pull = (await response.json()) as { number?: number; html_url?: string; message?: string }
  say(response.ok ? `opened PR #${pull.number} ${pull.html_url}` : `could not open a PR: ${pull.message}`)
  activity("ready")

  messages(async (text) => {
    activity("active")
    if (/failing checks|ci is failing/i.test(text)) {
      say("CI failed; reading the log")
      await pause(PACE)
      write(issue.file, issue.fixed)
      commitAndPush("Fix the failing check")
    } else if (/review comments|changes were requested|requested changes/i.test(text)) {
      const asks = text.split("\n").filter((line) => line.startsWith("- "))
      say(`addressing ${asks.length} review comment${asks.length === 1 ? "" : "s"}`)
      await pause(PACE)
      write(issue.file, issue.fixed)
      commitAndPush("Address review comments")
    } else {
      say(`noted: ${text.split("\n")[0]}`)
    }
    activity("ready")
  })
}

if (env.ORCH_ISSUE_ID === "orchestrator") orchestrator()
else void worker()
