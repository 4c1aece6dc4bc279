/** Waits for something a real process will do (a line on a tmux screen, a file): polls every 50 ms, up to `ms`. */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

export const eventually = <A>(what: string, probe: () => A | undefined | false, ms = 10_000) =>
  Effect.suspend(() => {
    const value = probe()
    return value === undefined || value === false ? Effect.fail(what) : Effect.succeed(value)
  }).pipe(
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: Math.ceil(ms / 50) }),
    Effect.mapError((what) => new Error(`timed out waiting for ${what}`))
  )

/** Whether a process is gone (signal 0 finds no such process). */
export const processGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}
