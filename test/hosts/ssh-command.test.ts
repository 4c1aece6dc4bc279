import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { HostConnectionFailed } from "../../src/hosts/errors.ts"
import { patientWithRefusals, reconnectSchedule } from "../../src/hosts/HostConnections.ts"
import { controlPath, controlPathProblem, scriptText, sshArgs } from "../../src/hosts/ssh-command.ts"

const host = { name: "b", spec: { ssh: { user: "orch", hostname: "10.0.0.2", port: 2222 }, identityFile: "/k/id", sshOptions: { ServerAliveInterval: "15" } } }

describe("ssh command lines", () => {
  it("a round trip goes through the master only: orch's options first, then the host's, then overridable defaults", () =>
    assert.deepStrictEqual(sshArgs(host, "/d/ssh/abc", "run"), [
      "-o",
      "BatchMode=yes",
      "-o",
      "ControlPath=/d/ssh/abc",
      "-o",
      "ControlMaster=no",
      "-o",
      "ProxyCommand=false",
      "-T",
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "ServerAliveInterval=5",
      "-o",
      "ServerAliveCountMax=3",
      "-o",
      "ConnectTimeout=10",
      "-i",
      "/k/id",
      "-l",
      "orch",
      "-p",
      "2222",
      "--",
      "10.0.0.2",
      "sh -s"
    ]))
  it("establishing may become the master, which persists; the user's own ProxyJump etc. apply (no ProxyCommand of ours)", () => {
    const args = sshArgs({ name: "c", spec: { ssh: { hostname: "box" } } }, "/d/ssh/x", "establish")
    assert.deepStrictEqual(args.slice(0, 9), [
      "-o",
      "BatchMode=yes",
      "-o",
      "ControlPath=/d/ssh/x",
      "-o",
      "ControlMaster=auto",
      "-o",
      "ControlPersist=10m",
      "-T"
    ])
    assert.isFalse(args.some((arg) => arg.startsWith("ProxyCommand")))
    assert.deepStrictEqual(args.slice(-3), ["--", "box", "sh -s"])
  })
  it("an interactive one gets a terminal through the master only, and runs the command given", () => {
    const args = sshArgs(host, "/p", "interactive", "tmux attach")
    assert.deepStrictEqual(args.slice(0, 9), ["-o", "BatchMode=yes", "-o", "ControlPath=/p", "-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-tt"])
    assert.deepStrictEqual(args.slice(-3), ["--", "10.0.0.2", "tmux attach"])
  })
  it("check asks the master, nothing else", () => assert.deepStrictEqual(sshArgs(host, "/p", "check").slice(-4), ["-O", "check", "--", "10.0.0.2"]))
  it("control paths are short and per host; one too long for a socket is refused", () => {
    assert.match(controlPath("/home/u/.orchestrator/ssh", host), /^\/home\/u\/\.orchestrator\/ssh\/[0-9a-f]{16}$/)
    assert.notStrictEqual(controlPath("/d", host), controlPath("/d", { ...host, name: "c" }))
    assert.isUndefined(controlPathProblem("/home/u/.orchestrator/ssh/0123456789abcdef"))
    assert.match(controlPathProblem(`/${"x".repeat(90)}/0123456789abcdef`)!, /too long for a Unix socket; set ORCH_HOME/)
  })
})

describe("scriptText (what sh -s reads)", () => {
  const sh = (text: string) => execFileSync("sh", ["-s"], { input: text, encoding: "utf8" })
  it("runs the script with stdin from /dev/null when there is no input", () => {
    assert.strictEqual(scriptText("echo hi", undefined, "D"), "{\necho hi\n} </dev/null\n")
    assert.strictEqual(sh(scriptText("cat; echo done")), "done\n")
  })
  it("gives the input as a here-document that no input line can end early", () => {
    const input = "line 'one' $HOME `x`\nORCH_INPUT_x\n}\nlast"
    assert.strictEqual(sh(scriptText("cat", input)), `${input}\n`)
  })
})

describe("reconnectSchedule", () => {
  it.effect("tries again after 1, 2, 4, 8, 16 s, then every 30 s", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const fiber = yield* Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => Effect.sync(() => attempts.push(now))),
        Effect.andThen(Effect.fail("down")),
        Effect.retry(reconnectSchedule()),
        Effect.forkChild
      )
      yield* TestClock.adjust("3 minutes")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(attempts.map((at) => at / 1000), [0, 1, 3, 7, 15, 31, 61, 91, 121, 151])
    }))
})

describe("patientWithRefusals", () => {
  it.effect("a host that refused us is asked again 5 minutes later than one that did not answer", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const refused = new HostConnectionFailed({ host: "a", target: "me@a", problem: "key-refused", detail: "Permission denied (publickey)." })
      const timedOut = new HostConnectionFailed({ host: "a", target: "me@a", problem: "timed-out", detail: "Connection timed out" })
      const fiber = yield* Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => Effect.sync(() => attempts.push(now))),
        Effect.andThen(Effect.suspend(() => Effect.fail(attempts.length <= 2 ? refused : timedOut))),
        Effect.retry(patientWithRefusals(reconnectSchedule())),
        Effect.forkChild
      )
      yield* TestClock.adjust("12 minutes")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(attempts.map((at) => at / 1000), [0, 301, 603, 607, 615, 631, 661, 691])
    }))
})
