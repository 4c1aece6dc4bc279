import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Most tests wait on real processes (git, tmux, sshd, Chromium), not the CPU: more files at once than cores.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
