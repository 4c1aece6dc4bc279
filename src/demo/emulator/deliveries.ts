/**
 * Webhook deliveries as GitHub makes them: a JSON POST per event with `x-github-event`, a unique
 * `x-github-delivery` and `x-hub-signature-256` (HMAC-SHA256 of the body with the hook's secret), one at a
 * time per hook in the order the events happened. Each attempt is recorded for tests.
 */
import { createHmac, randomUUID } from "node:crypto"

export interface Hook {
  readonly url: string
  readonly secret: string
}

export interface Delivery {
  readonly id: string
  readonly event: string
  readonly url: string
  /** The receiver's HTTP status, or the network error. */
  status?: number
  error?: string
}

export const makeDeliveries = () => {
  const hooks: Array<Hook> = []
  const log: Array<Delivery> = []
  let queue: Promise<void> = Promise.resolve()

  const deliver = (hook: Hook, event: string, body: string) => {
    const delivery: Delivery = { id: randomUUID(), event, url: hook.url }
    log.push(delivery)
    return fetch(hook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/orch-emulator",
        "x-github-event": event,
        "x-github-delivery": delivery.id,
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`
      },
      body,
      signal: AbortSignal.timeout(10_000)
    }).then(
      async (response) => {
        delivery.status = response.status
        await response.arrayBuffer()
      },
      (error: unknown) => {
        delivery.error = error instanceof Error ? error.message : String(error)
      }
    )
  }

  return {
    hooks,
    log,
    add: (hook: Hook) => hooks.push(hook),
    emit: (event: string, payload: Record<string, unknown>) => {
      if (hooks.length === 0) return
      const body = JSON.stringify(payload)
      const targets = [...hooks]
      queue = queue.then(() => Promise.all(targets.map((hook) => deliver(hook, event, body)))).then(() => undefined)
    },
    /** Resolves once every delivery announced so far has been attempted. */
    settled: () => queue
  }
}
