/**
 * Webhook deliveries for one session, coalesced into looks at its PR. Deliveries come in bursts (a push brings
 * `push` and `pull_request`, later `check_run` and `check_suite`): a delivery when nothing is under way starts a
 * look that first waits WEBHOOK_SETTLE for the rest of the burst, and deliveries while it settles are answered by
 * it; deliveries while the look is on its way ask for one more look after it, not one each. Pure; the supervisor
 * keeps each session's state and carries out the action.
 */
export const WEBHOOK_SETTLE = "50 millis"

/** Where a session's look stands; `undefined` when none is under way. */
export type LookState = "settling" | "looking" | "looking-then-again"

export type LookEvent =
  | "delivery"
  /** The settle time is over: the look starts. */
  | "settled"
  | "look-ended"
  /** The look was interrupted (the supervisor stops). */
  | "stopped"

/** `settle`: wait WEBHOOK_SETTLE, then say `settled` and look; `look`: look (again) now. */
export type LookAction = "settle" | "look" | "none"

export interface LookStep {
  readonly state: LookState | undefined
  readonly action: LookAction
}

export const nextLook = (state: LookState | undefined, event: LookEvent): LookStep => {
  switch (event) {
    case "delivery":
      if (state === undefined) return { state: "settling", action: "settle" }
      return { state: state === "looking" ? "looking-then-again" : state, action: "none" }
    case "settled":
      return state === "settling" ? { state: "looking", action: "look" } : { state, action: "none" }
    case "look-ended":
      if (state === "looking-then-again") return { state: "looking", action: "look" }
      return state === "looking" ? { state: undefined, action: "none" } : { state, action: "none" }
    case "stopped":
      return { state: undefined, action: "none" }
  }
}
