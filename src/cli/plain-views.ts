/** The command lines dist/views.cjs runs (src/cli/views-main.ts): `status` and `queue ls`, each plain or `--json`. */
export const plainView = (argv: ReadonlyArray<string>): "status" | "queue ls" | undefined => {
  const [first, second, ...rest] = argv
  const view = first === "status" ? "status" : first === "queue" && second === "ls" ? "queue ls" : undefined
  if (view === undefined) return undefined
  const flags = view === "status" ? argv.slice(1) : rest
  return flags.length === 0 || (flags.length === 1 && flags[0] === "--json") ? view : undefined
}
