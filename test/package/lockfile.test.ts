/**
 * `npm ci` refuses a lock that leaves out any optional dependency, even one for another platform. A registry
 * mirror that lacks a platform package makes `npm install` leave it out silently; scripts/lock-platforms.mjs
 * puts it back. This catches the gap before CI's `npm ci` does.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { assert, describe, it } from "vitest"

interface LockEntry {
  readonly optionalDependencies?: Record<string, string>
}

describe("package-lock.json", () => {
  it("lists every optional dependency of every package, so npm ci accepts it on any platform", () => {
    const lock = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>
    }
    const missing = Object.values(lock.packages).flatMap((entry) =>
      Object.keys(entry.optionalDependencies ?? {}).filter((name) => lock.packages[`node_modules/${name}`] === undefined)
    )
    assert.deepStrictEqual(missing, [], "run `node scripts/lock-platforms.mjs`")
  })
})
