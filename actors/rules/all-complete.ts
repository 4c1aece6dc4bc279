/**
 * `all-complete` fires when the last live worker ends, once each time that happens: only when a worker was live
 * since the last time none was. Pure; the supervisor counts live workers each probe cycle (and marks a worker
 * live when its actor starts, so one that begins and ends between two cycles still counts).
 */
export interface AllCompleteStep {
  readonly fire: boolean
  /** Whether a worker is live now: the state for the next count. */
  readonly hadLiveWorkers: boolean
}

export const allCompleteStep = (hadLiveWorkers: boolean, liveWorkers: number): AllCompleteStep => ({
  fire: hadLiveWorkers && liveWorkers === 0,
  hadLiveWorkers: liveWorkers > 0
})
