import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { EVENT_TYPES } from "../../src/domain/event.ts"

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : []
  })
const read = (dirs: ReadonlyArray<string>) => dirs.flatMap(sources).map((file) => readFileSync(file, "utf8")).join("\n")

describe("event types", () => {
  const code = read(["src", "actors"]).replace(/export const EVENT_TYPES = \[[\s\S]*?\] as const/, "")
  const tests = read(["test"]).replace(/const EVENT_TYPES[\s\S]*?as const/, "")
  const docs = readFileSync("docs/events.md", "utf8")
  it.each(EVENT_TYPES)("%s is emitted, tested and documented", (type) => {
    assert.include(code, `"${type}"`, `nothing emits ${type}`)
    assert.include(tests, `"${type}"`, `no test mentions ${type}`)
    assert.include(docs, `\`${type}\``, `docs/events.md does not describe ${type}`)
  })
})
