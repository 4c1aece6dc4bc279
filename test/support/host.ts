/** Test helpers: a private Host (env, home, cwd) and temp directories that clean themselves up. */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Host, type HostShape } from "../../src/config/host.ts"

export const withHost = (host: Partial<HostShape>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Host, { env: {}, homeDir: "/home/tester", cwd: "/work", ...host })

/**
 * A temp directory for the test's scope; removed when the scope closes. An agent killed a moment ago may still be
 * writing in it (Claude Code saves its state as it exits), so removal is retried for up to 10 s before it fails.
 */
export const tempDir = (prefix = "orch-test-") =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) =>
      Effect.try(() => rmSync(dir, { recursive: true, force: true })).pipe(
        Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 50 }),
        Effect.orDie
      )
  )

export const writeFile = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  return path
}
