#!/usr/bin/env node
/** Entry point of the `orch` command. Loads the command tree only when there is more to do than print the version. */
import { VERSION } from "../src/version.ts"

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`orch v${VERSION}\n`)
} else {
  const { main } = await import("../src/cli/main.ts")
  main(argv)
}
