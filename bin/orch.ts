#!/usr/bin/env node
/**
 * Entry point of the `orch` command. What needs little gets little: the version is printed without loading
 * anything, `spawn`, `batch-spawn` and `send` go straight to a running supervisor when there is one
 * (src/ipc/fast-path.ts), and only the rest loads the command tree (dist/cli.cjs, with a code cache:
 * src/cli/code-cache.ts). The cache loader is part of this file, not a chunk imported on the way: a dynamic import
 * costs a few milliseconds.
 */
import { loadCommandTree } from "../src/cli/code-cache.ts"
import { VERSION } from "../src/version.ts"

/** The command tree bundle's content hash, put in by scripts/build.mjs: it names the bundle's code caches. */
declare const ORCH_COMMAND_TREE_HASH: string

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`orch v${VERSION}\n`)
} else {
  const fast = argv[0] === "spawn" || argv[0] === "batch-spawn" || argv[0] === "send"
    ? await (await import("../src/ipc/fast-path.ts")).runFast(argv)
    : undefined
  if (fast !== undefined) {
    process.exitCode = fast
  } else {
    loadCommandTree(new URL("./cli.cjs", import.meta.url), ORCH_COMMAND_TREE_HASH).main(argv)
  }
}
