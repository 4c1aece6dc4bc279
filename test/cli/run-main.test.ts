import { describe, expect, it } from "@effect/vitest"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import { exitCodeAfter } from "../../src/cli/run-main.ts"

class Refused extends Error {
  override readonly [Runtime.errorExitCode] = 2
}

describe("the exit code of a run", () => {
  it.each(
    [
      ["a command's own code", Exit.succeed(0), undefined, 0],
      ["a failed command's code, as it answered it", Exit.succeed(1), undefined, 1],
      ["finished although a signal came", Exit.succeed(0), "SIGTERM", 0],
      ["interrupted by Ctrl-C", Exit.interrupt(1), "SIGINT", 130],
      ["interrupted by SIGTERM", Exit.interrupt(1), "SIGTERM", 143],
      ["interrupted by SIGHUP (the terminal closed)", Exit.interrupt(1), "SIGHUP", 129],
      ["interrupted by nothing outside", Exit.interrupt(1), undefined, 130],
      ["a failure that escaped, with its code", Exit.fail(new Refused()), undefined, 2],
      ["a defect", Exit.die(new Error("bug")), "SIGINT", 1]
    ] as const
  )("%s", (_name, exit, signal, code) => {
    expect(exitCodeAfter(exit as Exit.Exit<number, unknown>, signal)).toBe(code)
  })
})
