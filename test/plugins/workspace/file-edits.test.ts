import { assert, describe, it } from "@effect/vitest"
import { instructionEdits } from "../../../src/plugins/agent/codex.ts"
import { hookEdits, withOrchHooks } from "../../../src/plugins/agent/coding-agent.ts"
import { type FileEdit, filesToRead, resolveEdits, withLine } from "../../../src/plugins/workspace/file-edits.ts"

const upper: FileEdit = { _tag: "Update", path: "/a", update: (current) => (current ?? "none").toUpperCase() }

describe("file edits (pure)", () => {
  it.each([
    ["nothing", [], []],
    ["a write reads nothing", [{ _tag: "Write", path: "/a", content: "x" }], []],
    ["an update reads its file", [upper], ["/a"]],
    ["an update after a write of its file reads nothing", [{ _tag: "Write", path: "/a", content: "x" }, upper], []],
    ["an update from another file reads that one", [{ _tag: "Update", path: "/b", from: "/a", update: String }], ["/a"]],
    ["…unless the batch writes it first", [{ _tag: "Write", path: "/a", content: "x" }, { _tag: "Update", path: "/b", from: "/a", update: String }], []],
    ["a file is read once", [upper, upper], ["/a"]],
    ["an exclude reads nothing", [{ _tag: "ExcludeFromGit", workspace: "/w", pattern: "p" }], []]
  ] as ReadonlyArray<readonly [string, ReadonlyArray<FileEdit>, ReadonlyArray<string>]>)("%s", (_name, edits, reads) => {
    assert.deepStrictEqual(filesToRead(edits), reads)
  })

  it.each([
    ["a missing file is undefined to its update", [upper], {}, [{ path: "/a", content: "NONE" }]],
    ["an update starts from what the machine holds", [upper], { "/a": "held" }, [{ path: "/a", content: "HELD" }]],
    ["edits of one file fold, written once", [{ _tag: "Write", path: "/a", content: "x" }, upper, upper], {}, [{ path: "/a", content: "X" }]],
    [
      "an update from a file the batch wrote takes what was written",
      [
        { _tag: "Write", path: "/s", content: "say \"hi\"\n" },
        { _tag: "Update", path: "/t", from: "/s", update: (s) => JSON.stringify(s) }
      ],
      { "/s": "old" },
      [{ path: "/s", content: "say \"hi\"\n" }, { path: "/t", content: "\"say \\\"hi\\\"\\n\"" }]
    ]
  ] as ReadonlyArray<readonly [string, ReadonlyArray<FileEdit>, Record<string, string>, ReadonlyArray<unknown>]>)(
    "%s",
    (_name, edits, held, writes) => {
      assert.deepStrictEqual(resolveEdits(edits, (path) => held[path]).writes, writes)
    }
  )

  it("excludes are kept once each", () => {
    const exclude: FileEdit = { _tag: "ExcludeFromGit", workspace: "/w", pattern: ".claude/settings.local.json" }
    assert.deepStrictEqual(resolveEdits([exclude, exclude], () => undefined), {
      writes: [],
      excludes: [{ workspace: "/w", pattern: ".claude/settings.local.json" }]
    })
  })

  it.each(
    [
      ["", "p", "p\n"],
      ["a\n", "p", "a\np\n"],
      ["a", "p", "a\np\n"],
      ["a\np\n", "p", undefined],
      ["pp\n", "p", "pp\np\n"]
    ] as const
  )("withLine(%j, %j) = %j", (text, line, expected) => {
    assert.strictEqual(withLine(text, line), expected)
  })

  it("Claude Code's edits: its hooks merged into the workspace's settings (appending to the session's activity file there), the file kept out of git", () => {
    const edits = hookEdits({ workspacePath: "/h/wt", activityFile: "/h/data/sessions/p/p-1/activity.jsonl" })
    assert.deepStrictEqual(filesToRead(edits), ["/h/wt/.claude/settings.local.json"])
    const theirs = JSON.stringify({ model: "opus" })
    const { writes, excludes } = resolveEdits(edits, () => theirs)
    assert.strictEqual(writes.length, 1)
    assert.deepStrictEqual(JSON.parse(writes[0]!.content), withOrchHooks({ model: "opus" }, "/h/data/sessions/p/p-1/activity.jsonl"))
    assert.include(writes[0]!.content, "'/h/data/sessions/p/p-1/activity.jsonl'")
    assert.deepStrictEqual(excludes, [{ workspace: "/h/wt", pattern: ".claude/settings.local.json" }])
  })

  it("Codex's edit: the system prompt as a TOML (JSON) string beside it, from the system prompt file", () => {
    const edits = instructionEdits({ systemPromptFile: "/h/data/sessions/p/p-1/system-prompt.md" })
    const { writes } = resolveEdits(edits, (path) => (path === "/h/data/sessions/p/p-1/system-prompt.md" ? "Be \"good\".\n" : undefined))
    assert.deepStrictEqual(writes, [{ path: "/h/data/sessions/p/p-1/codex-instructions.toml", content: "\"Be \\\"good\\\".\\n\"" }])
  })
})
