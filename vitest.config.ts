import { defineConfig } from "vitest/config"

// vitest 5 wants Node >= 22.12: its failure reporter calls Map.groupBy, which Node 20 lacks.
// Without this polyfill (in the reporter's process) a failing test crashes the reporter and the diff is lost.
if (typeof (Map as { groupBy?: unknown }).groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    value: <K, V>(items: Iterable<V>, key: (v: V, i: number) => K) => {
      const groups = new Map<K, Array<V>>()
      let i = 0
      for (const item of items) {
        const k = key(item, i++)
        const bucket = groups.get(k)
        if (bucket) bucket.push(item)
        else groups.set(k, [item])
      }
      return groups
    }
  })
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
