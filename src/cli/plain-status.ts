/** The command lines dist/status.cjs runs (src/cli/status-main.ts): exactly `status`, or `status --json`. */
export const isPlainStatus = (argv: ReadonlyArray<string>): boolean =>
  argv[0] === "status" && (argv.length === 1 || (argv.length === 2 && argv[1] === "--json"))
