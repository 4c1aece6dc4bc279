/**
 * Recovery as a user does it after a crash: a supervisor still running (the crash hit a command) is stopped, one that
 * got a signal is waited for; `orch start --detach` without the crash variables; its first admission round
 * (admission.json written by its pid: recovery and adoption run before it); `orch stop`, sessions left running.
 */
import { admissionPid } from "./observe.ts"
import { isAlive, type World } from "./world.ts"

export const RECEIPT_TIMEOUT_MS = 30_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

/** Polls `probe` every 50 ms until it holds; false when `ms` passed first. */
export const until = async (probe: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  for (;;) {
    if (probe()) return true
    if (Date.now() > end) return false
    await sleep(50)
  }
}

/** Recovers; answers what went wrong on the way, as violations. */
export const recover = async (world: World, signalled: boolean): Promise<Array<string>> => {
  const problems: Array<string> = []
  const previous = world.supervisorPid()
  if (previous !== undefined && isAlive(previous)) {
    if (signalled && !(await until(() => !isAlive(previous), RECEIPT_TIMEOUT_MS))) {
      problems.push(`the supervisor (pid ${previous}) did not exit within 30 s of its signal`)
    }
    if (isAlive(previous)) {
      const stopped = await world.orch(["stop"])
      if (stopped.code !== 0) problems.push(`recovery: \`orch stop\` of the running supervisor exited ${stopped.code}: ${firstLine(stopped.stderr)}`)
    }
  }
  const started = await world.orch(["start", "app", "--detach", "--no-open"])
  if (started.code !== 0) return [...problems, `recovery: \`orch start --detach\` exited ${started.code}: ${firstLine(started.stderr)}`]
  const pid = world.supervisorPid()
  if (!(await until(() => pid !== undefined && admissionPid(world) === pid, RECEIPT_TIMEOUT_MS))) {
    problems.push(`recovery: the new supervisor (pid ${pid}) ran no admission round within 30 s (admission.json names pid ${admissionPid(world)})`)
  }
  const stopped = await world.orch(["stop"])
  if (stopped.code !== 0) problems.push(`recovery: \`orch stop\` exited ${stopped.code}: ${firstLine(stopped.stderr)}`)
  if (pid !== undefined && !(await until(() => !isAlive(pid), RECEIPT_TIMEOUT_MS))) problems.push(`recovery: the supervisor (pid ${pid}) did not stop`)
  return problems
}
