/**
 * What `orch demo` plays: the sandbox project's three issues, what the scripted agent writes for each, the CI
 * rule, what the demo's "reviewer" does on each pull request, and the steps that must all happen for the demo
 * to count as a success. Pure data and decisions; src/demo/run.ts plays them.
 */
import type { PullSnapshot } from "./emulator/server.ts"

export type Story = "ci-fix" | "review" | "straight"

export interface DemoIssue {
  readonly title: string
  readonly body: string
  readonly story: Story
  /** The file the agent writes, its first draft, and what it becomes after the fix the story asks for. */
  readonly file: string
  readonly draft: string
  readonly fixed: string
}

export const DEMO_REPO = "acme/demo"
export const DEMO_PROJECT = "demo"
export const WEBHOOK_SECRET_VAR = "ORCH_DEMO_WEBHOOK_SECRET"

export const DEMO_ISSUES: ReadonlyArray<DemoIssue> = [
  {
    title: "Add a sum function",
    body: "`sum(a, b)` returns the sum of two numbers. Negative numbers must work too.",
    story: "ci-fix",
    file: "src/sum.js",
    draft: "export const sum = (a, b) => a + b\n// TODO: check negative numbers\n",
    fixed: "export const sum = (a, b) => a + b\n"
  },
  {
    title: "Add a greeting",
    body: "`greet(name)` says hello to `name`.",
    story: "review",
    file: "src/greet.js",
    draft: "export const greet = (n) => `hello ${n}`\n",
    fixed: "/** Says hello to `name`. */\nexport const greet = (name) => `Hello, ${name}!`\n"
  },
  {
    title: "Document the project",
    body: "The README says what the project is and how to run its tests.",
    story: "straight",
    file: "README.md",
    draft: "# demo\n\nA tiny library orch's demo agents work on. Run the tests with `npm test`.\n",
    fixed: "# demo\n\nA tiny library orch's demo agents work on. Run the tests with `npm test`.\n"
  }
]

/** The demo's CI: a commit fails when any file in it still has a TODO (the log lists them, like a linter). */
export const ciVerdict = (todos: ReadonlyArray<string>) =>
  todos.length === 0
    ? { conclusion: "success" as const, title: "All checks passed", summary: "no TODOs left" }
    : {
      conclusion: "failure" as const,
      title: `${todos.length} TODO${todos.length === 1 ? "" : "s"} left`,
      summary: "the no-todo check failed",
      text: [
        "$ npm run lint",
        ...todos.map((line) => `  ${line}  error  no TODOs in shipped code`),
        `✖ ${todos.length} problem${todos.length === 1 ? "" : "s"}`
      ].join("\n")
    }

export type ReviewerMove =
  | { readonly _tag: "Wait" }
  | {
    readonly _tag: "RequestChanges"
    readonly body: string
    readonly comments: ReadonlyArray<{ readonly path: string; readonly line: number; readonly body: string }>
  }
  | { readonly _tag: "Approve"; readonly body: string }

/** What the demo's reviewer does next on a pull request: only green heads get a review, each head once. */
export const reviewerMove = (story: Story, file: string, pull: PullSnapshot): ReviewerMove => {
  if (pull.merged || pull.ci !== "success") return { _tag: "Wait" }
  if (pull.reviews.some((r) => r.commit === pull.headSha)) return { _tag: "Wait" }
  if (story === "review" && !pull.reviews.some((r) => r.state === "CHANGES_REQUESTED")) {
    return {
      _tag: "RequestChanges",
      body: "Nice start. Two things before this can go in.",
      comments: [
        { path: file, line: 1, body: "Call the parameter `name`, and document the function." },
        { path: file, line: 1, body: "Greet with a capital H and an exclamation mark." }
      ]
    }
  }
  return { _tag: "Approve", body: "Looks good." }
}

/** One thing the demo promises to show, and the event that proves it happened. */
export interface DemoStep {
  readonly label: string
  readonly done: (events: ReadonlyArray<DemoEvent>) => boolean
}

export interface DemoEvent {
  readonly type: string
  readonly sessionId?: string
  readonly reaction?: string
  readonly action?: string
  readonly data?: Record<string, unknown>
}

const has = (sessionId: string, type: string, extra: (event: DemoEvent) => boolean = () => true) => (events: ReadonlyArray<DemoEvent>) =>
  events.some((e) => e.sessionId === sessionId && e.type === type && extra(e))
const sent = (sessionId: string, reaction: string) =>
  has(sessionId, "reaction.triggered", (e) => e.reaction === reaction && e.action === "send-to-agent" && e.data?.failed === undefined)
/** `later` happened after the first `earlier` (a CI pass after the failure, say). */
const after = (sessionId: string, earlier: string, later: string) => (events: ReadonlyArray<DemoEvent>) => {
  const first = events.findIndex((e) => e.sessionId === sessionId && e.type === earlier)
  return first >= 0 && events.slice(first + 1).some((e) => e.sessionId === sessionId && e.type === later)
}

/** Every step of the demo, for the sessions of the ci-fix, review and straight issues. */
export const demoSteps = (sessions: Readonly<Record<Story, string>>, inboxCount: () => number): ReadonlyArray<DemoStep> => {
  const { "ci-fix": ci, review, straight } = sessions
  return [
    { label: `${ci}: the agent opened a PR`, done: has(ci, "pr.created") },
    { label: `${ci}: CI failed on it`, done: has(ci, "ci.failed") },
    { label: `${ci}: the ci-failed reaction sent the failure to the agent`, done: sent(ci, "ci-failed") },
    { label: `${ci}: the agent pushed a fix and CI went green`, done: after(ci, "ci.failed", "ci.passed") },
    { label: `${ci}: approved, auto-merged`, done: has(ci, "pr.merged") },
    { label: `${ci}: cleaned up`, done: has(ci, "session.cleaned") },
    { label: `${review}: the reviewer requested changes`, done: has(review, "review.changes_requested") },
    { label: `${review}: the review comments were sent to the agent`, done: sent(review, "changes-requested") },
    { label: `${review}: the agent addressed them and got approved`, done: after(review, "review.changes_requested", "review.approved") },
    { label: `${review}: auto-merged and cleaned up`, done: (e) => has(review, "pr.merged")(e) && has(review, "session.cleaned")(e) },
    { label: `${straight}: PR green, approved, auto-merged, cleaned up`, done: (e) => has(straight, "pr.merged")(e) && has(straight, "session.cleaned")(e) },
    { label: "the hosted inbox has notifications", done: () => inboxCount() > 0 }
  ]
}
