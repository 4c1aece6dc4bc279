import { describe, expect, it } from "@effect/vitest"
import { interruptedSpawnSentence, type SpawnAsked, type SpawnEventLike, spawnFate } from "../../src/domain/spawn-fate.ts"

const issue: SpawnAsked = { project: "app", issueId: "7" }
const task: SpawnAsked = { project: "app", taskTitle: "Fix the login" }
const spawned = (sessionId: string, issueId: string, more: Partial<SpawnEventLike> = {}): SpawnEventLike => ({
  type: "session.spawned",
  sessionId,
  projectId: "app",
  issueId,
  ...more
})
const failed = (issueId: string, more: Partial<SpawnEventLike> = {}): SpawnEventLike => ({ type: "session.spawn_failed", projectId: "app", issueId, ...more })

describe("what became of an interrupted spawn", () => {
  it.each(
    [
      ["nothing yet", issue, [], { _tag: "Unknown" }],
      ["undone", issue, [failed("7")], { _tag: "Undone" }],
      ["finished", issue, [spawned("app-3", "7")], { _tag: "Finished", sessionId: "app-3" }],
      ["another issue's events are not its own", issue, [spawned("app-3", "8"), failed("9")], { _tag: "Unknown" }],
      ["another project's spawn of the same issue is passed over when its own is there", issue, [
        failed("7", { projectId: "app" }),
        spawned("web-1", "7", { projectId: "web" })
      ], { _tag: "Undone" }],
      ["a project named by its key (not its id) still matches on the issue", { project: "my-app", issueId: "7" }, [spawned("app-3", "7")], {
        _tag: "Finished",
        sessionId: "app-3"
      }],
      ["other events are passed over", issue, [{ type: "session.killed", sessionId: "app-1", issueId: "7" }], { _tag: "Unknown" }],
      ["a task, by its title", task, [spawned("app-4", "fix-the-login", { data: { task: "Fix the login" } })], { _tag: "Finished", sessionId: "app-4" }],
      ["a task undone", task, [failed("fix-the-login", { data: { task: "Fix the login" } })], { _tag: "Undone" }],
      ["an issue's spawn is not a task's of the same slug", { project: "app", issueId: "fix-the-login" }, [
        failed("fix-the-login", { data: { task: "Fix the login" } })
      ], { _tag: "Unknown" }]
    ] as const
  )("%s", (_name, asked, events, fate) => {
    expect(spawnFate(events, asked)).toEqual(fate)
  })

  it.each(
    [
      [issue, false, { _tag: "Unknown" }, "interrupted before the spawn of issue 7 in app began; nothing was made"],
      [issue, true, { _tag: "Undone" }, "interrupted: the spawn of issue 7 in app was stopped and what it had made undone; no session was started"],
      [
        issue,
        true,
        { _tag: "Finished", sessionId: "app-3" },
        "interrupted, but the spawn of issue 7 in app had already finished: app-3 runs (`orch session kill app-3` ends it)"
      ],
      [
        task,
        true,
        { _tag: "Unknown" },
        "interrupted: the spawn of the task \"Fix the login\" was told to stop, but orch has not seen it finish or be undone yet; `orch status` shows whether a session was started"
      ]
    ] as const
  )("says it in one sentence: %#", (asked, begun, fate, sentence) => {
    expect(interruptedSpawnSentence(asked, begun, fate)).toBe(sentence)
  })
})
