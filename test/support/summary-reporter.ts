/**
 * Ends the run with one plain line, `vitest: N passed, N failed[, N skipped]`, after vitest's own summary:
 * the form CI reads to count tests in any language.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>) {
    let passed = 0
    let failed = errors.length
    let skipped = 0
    for (const module of modules) {
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`)
  }
}
