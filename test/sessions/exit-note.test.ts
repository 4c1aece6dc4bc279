import { assert, describe, it } from "@effect/vitest"
import { exitNote, lastPrintedLines } from "../../src/sessions/agent-start.ts"

describe("exitNote: what an agent found ended printed last, as one line", () => {
  const rows: ReadonlyArray<[string, ReadonlyArray<string>, ReadonlyArray<string>, string | undefined]> = [
    ["nothing printed: no note", [], [], undefined],
    ["one line", ["Error: invalid API key"], [], "Error: invalid API key"],
    ["its last three lines, joined", ["starting", "loading config", "  Error:   no credits  ", "exiting"], [], "loading config / Error: no credits / exiting"],
    ["secrets hidden: a value it was given, a key's shape", ["key sk-ant-api03-abcdefghijklmnopqrstuv refused", "MYVALUE12345 bad"], [
      "MYVALUE12345"
    ], "key <redacted> refused / <redacted> bad"],
    ["cut to 240 characters", ["x".repeat(300)], [], `${"x".repeat(239)}…`]
  ]
  for (const [name, printed, known, expected] of rows) it(name, () => assert.strictEqual(exitNote(printed, known), expected))

  it("read off a dead pane: blank lines and tmux's own line left out", () =>
    assert.strictEqual(
      exitNote(lastPrintedLines("booting\n\nfatal: out of credits\n\nPane is dead (status 3, Fri Nov 27 22:00:00 2026)\n")),
      "booting / fatal: out of credits"
    ))
})
