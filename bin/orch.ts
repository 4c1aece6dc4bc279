#!/usr/bin/env node
/**
 * Entry point of the `orch` command. What needs little gets little: the version is printed without loading
 * anything, `spawn`, `batch-spawn` and `send` go straight to a running supervisor when there is one
 * (src/ipc/fast-path.ts), `status` and `queue ls` (plain or `--json`) load a bundle of their own (dist/views.cjs:
 * src/cli/views-main.ts), and only the rest loads the command tree (dist/cli.cjs). Both bundles load with a code
 * cache (src/cli/code-cache.ts). The cache loader is part of this file, not a chunk imported on the way: a dynamic import
 * costs a few milliseconds.
 */
import { loadCommandTree } from "../src/cli/code-cache.ts"
import { failOnLostOutput } from "../src/cli/output-lost.ts"
import { plainView } from "../src/cli/plain-views.ts"
import { VERSION } from "../src/version.ts"

/** The bundles' content hashes, put in by scripts/build.mjs: they name each bundle's code caches. */
declare const ORCH_COMMAND_TREE_HASH: string
declare const ORCH_VIEWS_HASH: string

const argv = process.argv.slice(2)
failOnLostOutput()
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`orch v${VERSION}\n`)
} else {
  const fast = argv[0] === "spawn" || argv[0] === "batch-spawn" || argv[0] === "send"
    ? await (await import("../src/ipc/fast-path.ts")).runFast(argv)
    : undefined
  if (fast !== undefined) {
    process.exitCode = fast
  } else if (plainView(argv) !== undefined) {
    loadCommandTree(new URL("./views.cjs", import.meta.url), ORCH_VIEWS_HASH).main(argv)
  } else {
    loadCommandTree(new URL("./cli.cjs", import.meta.url), ORCH_COMMAND_TREE_HASH).main(argv)
  }
}
