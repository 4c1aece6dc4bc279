/**
 * The emulator's background work (check runs in progress, mergeability being computed): timers that `close`
 * cancels, and `idle`, which resolves once none is left, so a test waits on the work itself rather than a time.
 */
export const makeJobs = () => {
  const timers = new Set<NodeJS.Timeout>()
  let running = 0
  let closed = false
  let waiters: Array<() => void> = []
  const wake = () => {
    if (running > 0) return
    const woken = waiters
    waiters = []
    for (const resolve of woken) resolve()
  }
  /** Counts one job as running; the returned function ends it (only its first call counts). */
  const begin = () => {
    running++
    let ended = false
    return () => {
      if (ended || closed) return
      ended = true
      running--
      wake()
    }
  }
  return {
    begin,
    /** Runs `task` after `ms` as one job. */
    after: (ms: number, task: () => void) => {
      const end = begin()
      const timer = setTimeout(() => {
        timers.delete(timer)
        try {
          task()
        } finally {
          end()
        }
      }, ms)
      timers.add(timer)
    },
    /** False once `close` ran: work still settling then is dropped, not announced. */
    open: () => !closed,
    idle: () => (running === 0 || closed ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    close: () => {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      running = 0
      wake()
    }
  }
}

export type Jobs = ReturnType<typeof makeJobs>
