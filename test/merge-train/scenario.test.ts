/**
 * The merge-train bench's scenario (bench/merge-train.mjs) is what it claims, with real git: every task green
 * alone, exactly the designed pairs conflicting as text, exactly the designed pairs green alone and red
 * together, and the agent's way out (its change made again on the other's) green. And the bench's reading of a
 * run: the conflicts that happened, and the prediction's precision and recall.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { tempDir } from "../support/host.ts"
import { conflictsThatHappened, mergesOf, predictionScore, type RepohostEvent } from "./outcome.ts"
import { conflictsAsText, directoryTree, gitTree, INITIAL_TREE, memoryTree, pairKey, SEMANTIC_PAIRS, TASKS, TEXTUAL_PAIRS, typeErrors } from "./scenario.ts"

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-C", cwd, "-c", "user.name=T", "-c", "user.email=t@t", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** The initial tree on `main` and each task's change on its own branch `task-N`, in a real repository. */
const taskBranches = (root: string) => {
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  const tree = directoryTree(repo)
  for (const [path, text] of Object.entries(INITIAL_TREE)) tree.write(path, text)
  git(repo, "add", "-A")
  git(repo, "commit", "-qm", "initial")
  for (const task of TASKS) {
    git(repo, "checkout", "-q", "-b", `task-${task.issue}`, "main")
    task.apply(tree)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", task.title)
  }
  return join(repo, ".git")
}

const pairs = TASKS.flatMap((a) => TASKS.filter((b) => b.issue > a.issue).map((b) => [a.issue, b.issue] as const))

describe("the merge-train bench's scenario", () => {
  it.effect("each task is green alone; the designed pairs conflict as text, or are green alone and red together, and no other", () =>
    Effect.gen(function*() {
      const gitDir = taskBranches(yield* tempDir("orch-train-scenario-"))
      expect(typeErrors(gitTree(gitDir, "main"))).toEqual([])
      for (const task of TASKS) expect(typeErrors(gitTree(gitDir, `task-${task.issue}`)), task.title).toEqual([])

      const textual = pairs.filter(([a, b]) => conflictsAsText(gitDir, `task-${a}`, `task-${b}`)).map(([a, b]) => pairKey(a, b))
      expect(textual.sort()).toEqual([...TEXTUAL_PAIRS].sort())
      const redTogether = pairs.filter(([a, b]) => !textual.includes(pairKey(a, b))).filter(([a, b]) => {
        const merged = execFileSync("git", ["--git-dir", gitDir, "merge-tree", "--write-tree", `task-${a}`, `task-${b}`], { encoding: "utf8" }).split("\n")[0]!
        return typeErrors(gitTree(gitDir, merged)).length > 0
      }).map(([a, b]) => pairKey(a, b))
      expect(redTogether.sort()).toEqual([...SEMANTIC_PAIRS].sort())
    }).pipe(Effect.scoped))

  it.each([...TEXTUAL_PAIRS, ...SEMANTIC_PAIRS].flatMap((pair) => {
    const [a, b] = pair.split("+").map(Number)
    return [[a!, b!], [b!, a!]]
  }))("task %i's change made again after task %i's merged is green and keeps both", (first, second) => {
    const tree = memoryTree()
    TASKS.find((t) => t.issue === second)!.apply(tree)
    const afterOne = tree.snapshot()
    TASKS.find((t) => t.issue === first)!.apply(tree)
    expect(typeErrors(tree)).toEqual([])
    expect(tree.snapshot()).not.toEqual(afterOne)
    // Nothing the first merge added is lost (a rename rewrites lines, so compare the files' set).
    expect(tree.files()).toEqual(expect.arrayContaining(Object.keys(afterOne).filter((path) => path !== "src/format.ts")))
  })

  const head = (branch: string, sha: string, at: number): RepohostEvent => ({ kind: "head", branch, sha, at })
  const conflicting = new Set(["M1|b", "M2|c"])
  const conflicts = (base: string, sha: string) => conflicting.has(`${base}|${sha}`)

  it("a conflict happened where a merge moved the base and an open head that merged cleanly before no longer does; each merge's head and base", () => {
    const events: Array<RepohostEvent> = [
      head("feat/a", "a", 1),
      head("feat/b", "b", 2),
      head("feat/c", "c", 3),
      { kind: "merged", branch: "feat/a", at: 4 },
      { kind: "base", before: "M0", after: "M1", at: 5 },
      head("feat/b", "b2", 6),
      { kind: "merged", branch: "feat/b", at: 7 },
      { kind: "base", before: "M1", after: "M2", at: 8 },
      // A push to the base that is no merge (a person's) is no pull request's conflict.
      { kind: "base", before: "M2", after: "M3", at: 9 }
    ]
    expect(conflictsThatHappened(events, conflicts)).toEqual([{ merged: "feat/a", other: "feat/b", at: 5 }, { merged: "feat/b", other: "feat/c", at: 8 }])
    // What merged: feat/a at a onto M0, feat/b at the head it was moved to (b2), not the one it had first, onto M1.
    expect(mergesOf(events)).toEqual([{ branch: "feat/a", head: "a", base: "M0" }, { branch: "feat/b", head: "b2", base: "M1" }])
  })

  it.each(
    [
      ["nothing predicted, nothing happened", [], [], { predicted: 0, correct: 0, happened: 0, foreseen: 0, precision: undefined, recall: undefined }],
      ["foreseen", [{ pair: "a+b", at: 1 }], [{ pair: "a+b", at: 2 }], { predicted: 1, correct: 1, happened: 1, foreseen: 1, precision: 1, recall: 1 }],
      ["predicted after it happened", [{ pair: "a+b", at: 3 }], [{ pair: "a+b", at: 2 }], {
        predicted: 1,
        correct: 0,
        happened: 1,
        foreseen: 0,
        precision: 0,
        recall: 0
      }],
      ["one false alarm, one missed", [{ pair: "a+b", at: 1 }, { pair: "a+c", at: 1 }, { pair: "a+b", at: 5 }], [{ pair: "a+b", at: 2 }, {
        pair: "b+c",
        at: 2
      }], {
        predicted: 2,
        correct: 1,
        happened: 2,
        foreseen: 1,
        precision: 0.5,
        recall: 0.5
      }]
    ] as const
  )("prediction score: %s", (_, predictions, happened, score) => {
    expect(predictionScore(predictions, happened)).toEqual(score)
  })
})
