/** Test helpers: a private Host (env, home, cwd) and temp directories that clean themselves up. */
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Host, type HostShape } from "../../src/config/host.ts"

export const withHost = (host: Partial<HostShape>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Host, { env: {}, homeDir: "/home/tester", cwd: "/work", ...host })

/** A temp directory for the test's scope; removed when the scope closes. */
export const tempDir = (prefix = "orch-test-") =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    // Retries: an agent killed a moment ago may still be writing in it.
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))
  )

export const writeFile = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  return path
}
