/** The per-install dashboard token, `~/.orchestrator/token` (mode 0600): made once, read after. */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const ensureToken = (root: string): string => {
  const file = join(root, "token")
  try {
    const token = readFileSync(file, "utf8").trim()
    if (token.length >= 32) return token
  } catch {
    // not made yet
  }
  mkdirSync(root, { recursive: true })
  const token = randomBytes(24).toString("hex")
  writeFileSync(file, `${token}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return token
}

export const sameToken = (given: string | undefined, token: string): boolean =>
  given !== undefined && given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token))
