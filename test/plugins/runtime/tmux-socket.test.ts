import { assert, describe, it } from "@effect/vitest"
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultTmuxSocket, ensureSocketDir, socketDirProblem, socketDirState } from "../../../src/plugins/runtime/tmux-socket.ts"

const withDir = (run: (dir: string) => void) => {
  const dir = mkdtempSync(join(tmpdir(), "orch-tmux-socket-"))
  try {
    run(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const uid = process.getuid!()

describe("tmux's socket directory", () => {
  it("is tmux's own default, under TMUX_TMPDIR when set, unless ORCH_TMUX_SOCKET names a socket", () => {
    assert.strictEqual(defaultTmuxSocket({}), `/tmp/tmux-${uid}/default`)
    assert.strictEqual(defaultTmuxSocket({ TMUX_TMPDIR: "/run/user/7" }), `/run/user/7/tmux-${uid}/default`)
    assert.strictEqual(defaultTmuxSocket({ TMUX_TMPDIR: "/x", ORCH_TMUX_SOCKET: "/y/s" }), "/y/s")
  })

  it("a missing one is created with mode 0700, as tmux itself would", () =>
    withDir((dir) => {
      const socket = defaultTmuxSocket({ TMUX_TMPDIR: dir })
      assert.deepStrictEqual(socketDirState(socket), { _tag: "Missing", dir: join(dir, `tmux-${uid}`) })
      assert.deepStrictEqual(ensureSocketDir(socket), { _tag: "Ready", dir: join(dir, `tmux-${uid}`) })
      assert.strictEqual(statSync(join(dir, `tmux-${uid}`)).mode & 0o777, 0o700)
    }))

  it("one open to other users, owned by someone else, or not a directory is refused with the reason", () =>
    withDir((dir) => {
      const open = join(dir, "open", "default")
      mkdirSync(join(dir, "open"))
      chmodSync(join(dir, "open"), 0o777)
      const state = ensureSocketDir(open)
      assert.deepStrictEqual(state, { _tag: "Unsafe", dir: join(dir, "open"), reason: "other users have access to it (mode 777)" })
      assert.strictEqual(
        socketDirProblem(state as Exclude<typeof state, { _tag: "Ready" }>),
        `tmux cannot use its socket directory ${
          join(dir, "open")
        }: other users have access to it (mode 777); fix it (chmod 700, owned by you) or set TMUX_TMPDIR to a directory of your own`
      )

      writeFileSync(join(dir, "file"), "")
      assert.deepStrictEqual(ensureSocketDir(join(dir, "file", "default")), { _tag: "Unsafe", dir: join(dir, "file"), reason: "it is not a directory" })

      if (uid === 0) {
        mkdirSync(join(dir, "theirs"), { mode: 0o700 })
        chownSync(join(dir, "theirs"), 65534, 65534)
        assert.deepStrictEqual(ensureSocketDir(join(dir, "theirs", "default")), {
          _tag: "Unsafe",
          dir: join(dir, "theirs"),
          reason: "it belongs to uid 65534, not to you (uid 0)"
        })
      }
    }))
})
