/**
 * The merge-train bench's scenario (bench/merge-train.mjs, issue 24): a small repository, ten tasks whose pull
 * requests touch overlapping files, and the CI rule that judges a commit by its tree. Three groups of tasks:
 *
 * - textual conflicts: tasks 1, 2 and 5 each add a route right before the same line of src/routes.ts, tasks 6
 *   and 9 a line at the same place of CHANGELOG.md; whichever merges first, the others then conflict;
 * - overlap without conflict: task 10 edits the first line of src/routes.ts, far from the routes' end;
 * - semantic conflicts (each green alone, red together, no textual conflict): task 3 renames `total` to `sum`
 *   while task 4 adds a caller of `total`; task 7 moves `formatDate` to another module while task 8 adds an
 *   import of it from the old one.
 *
 * A task is a change to whatever tree it is applied to, so the scripted agent (agent.ts) resolves a conflict or
 * a red check the way a person would: it starts again from the default branch and makes its change there.
 * Plain TypeScript with erasable syntax: `node` runs it as it is (the agent, the bench), and vitest tests it.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"

export const REPO = "acme/app"

/** A tree of text files a task changes: in memory (tests) or a directory (the agent's worktree). */
export interface Tree {
  readonly files: () => ReadonlyArray<string>
  readonly read: (path: string) => string | undefined
  readonly write: (path: string, text: string) => void
  readonly remove: (path: string) => void
}

export const INITIAL_TREE: Readonly<Record<string, string>> = {
  "README.md": "# app\n",
  "CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n## 1.0.0\n\n- First release.\n",
  "src/router.ts": "export const route = (path: string, page: string) => ({ path, page })\n",
  "src/routes.ts": [
    "// The app's routes.",
    "import { route } from \"./router.ts\"",
    "",
    "export const routes = [",
    "  route(\"/\", \"home\"),",
    "  route(\"/cart\", \"cart\"),",
    "  // -- end of routes",
    "]",
    ""
  ].join("\n"),
  "src/math.ts": "export const total = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0)\n",
  "src/cart.ts": "import { total } from \"./math.ts\"\n\nexport const cartTotal = (prices: Array<number>) => total(prices)\n",
  "src/format.ts": [
    "export const formatDate = (d: Date) => d.toISOString().slice(0, 10)",
    "",
    "export const formatPrice = (n: number) => `$${n.toFixed(2)}`",
    ""
  ].join("\n"),
  "src/header.ts": "import { formatDate } from \"./format.ts\"\n\nexport const header = () => formatDate(new Date())\n"
}

const must = (tree: Tree, path: string) => {
  const text = tree.read(path)
  if (text === undefined) throw new Error(`${path} is missing`)
  return text
}

/** Puts `line` right before the first line that is `marker` (trimmed). */
const insertBefore = (tree: Tree, path: string, marker: string, line: string) => {
  const lines = must(tree, path).split("\n")
  const at = lines.findIndex((l) => l.trim() === marker)
  if (at === -1) throw new Error(`${path} has no line ${marker}`)
  lines.splice(at, 0, line)
  tree.write(path, lines.join("\n"))
}

const IMPORT = /^import \{ ([^}]+) \} from "\.\/([^"]+)"$/gm
const sources = (tree: Tree) => tree.files().filter((path) => path.startsWith("src/") && path.endsWith(".ts"))
const exportsOf = (text: string) => [...text.matchAll(/^export const (\w+)/gm)].map((m) => m[1]!)
/** The source file that exports `name` now. */
const exporterOf = (tree: Tree, name: string) => {
  const found = sources(tree).find((path) => exportsOf(tree.read(path) ?? "").includes(name))
  if (found === undefined) throw new Error(`nothing exports ${name}`)
  return found
}
const importers = (tree: Tree, module: string) =>
  sources(tree).filter((path) => [...(tree.read(path) ?? "").matchAll(IMPORT)].some((m) => `src/${m[2]}` === module))

/** Renames an export and every use of it in the files that import it. */
const renameExport = (tree: Tree, module: string, from: string, to: string) => {
  const word = new RegExp(`\\b${from}\\b`, "g")
  for (const path of [module, ...importers(tree, module)]) tree.write(path, must(tree, path).replace(word, to))
}

/** Moves an export's line to another module and points its importers there. */
const moveExport = (tree: Tree, name: string, from: string, to: string) => {
  const lines = must(tree, from).split("\n")
  const at = lines.findIndex((l) => l.startsWith(`export const ${name} `))
  if (at === -1) throw new Error(`${from} does not export ${name}`)
  const [moved] = lines.splice(at, lines[at + 1] === "" ? 2 : 1)
  tree.write(from, lines.join("\n"))
  tree.write(to, `${tree.read(to) ?? ""}${moved}\n`)
  for (const path of importers(tree, from)) {
    tree.write(path, must(tree, path).replace(`import { ${name} } from "./${from.slice(4)}"`, `import { ${name} } from "./${to.slice(4)}"`))
  }
}

const addPage = (tree: Tree, path: string, page: string) => {
  insertBefore(tree, "src/routes.ts", "// -- end of routes", `  route("/${path}", "${page}"),`)
  tree.write(`src/pages/${page}.ts`, `export const ${page} = () => "${page}"\n`)
}

const addToChangelog = (tree: Tree, line: string) => insertBefore(tree, "CHANGELOG.md", "## 1.0.0", `- ${line}\n`)

export interface Task {
  readonly issue: number
  readonly title: string
  /** Makes the task's change on `tree`, as it is now. */
  readonly apply: (tree: Tree) => void
}

export const TASKS: ReadonlyArray<Task> = [
  { issue: 1, title: "Add the orders page", apply: (tree) => addPage(tree, "orders", "orders") },
  { issue: 2, title: "Add the account page", apply: (tree) => addPage(tree, "account", "account") },
  { issue: 3, title: "Rename total to sum", apply: (tree) => renameExport(tree, "src/math.ts", "total", "sum") },
  {
    issue: 4,
    title: "Add a sales report",
    apply: (tree) => {
      // The summing function, by whatever name math.ts gives it now.
      const name = exportsOf(must(tree, "src/math.ts")).find((n) => n === "total" || n === "sum") ?? "total"
      tree.write("src/report.ts", `import { ${name} } from "./math.ts"\n\nexport const report = (sales: Array<number>) => \`sold \${${name}(sales)}\`\n`)
    }
  },
  { issue: 5, title: "Add the help page", apply: (tree) => addPage(tree, "help", "help") },
  {
    issue: 6,
    title: "Prices in euros",
    apply: (tree) => {
      tree.write("src/currency.ts", "export const currency = \"EUR\"\n")
      addToChangelog(tree, "Prices in euros.")
    }
  },
  { issue: 7, title: "Move formatDate to time.ts", apply: (tree) => moveExport(tree, "formatDate", "src/format.ts", "src/time.ts") },
  {
    issue: 8,
    title: "Add a footer with the date",
    apply: (tree) => {
      const module = exporterOf(tree, "formatDate").slice(4)
      tree.write("src/footer.ts", `import { formatDate } from "./${module}"\n\nexport const footer = () => \`as of \${formatDate(new Date())}\`\n`)
    }
  },
  {
    issue: 9,
    title: "Dates in the user's locale",
    apply: (tree) => {
      tree.write("src/locale.ts", "export const locale = \"en-GB\"\n")
      addToChangelog(tree, "Dates in the user's locale.")
    }
  },
  {
    issue: 10,
    title: "Say what the routes file is for",
    apply: (tree) => tree.write("src/routes.ts", must(tree, "src/routes.ts").replace("// The app's routes.", "// The app's routes, in the order they match."))
  }
]

/** An unordered pair (of tasks, or of sessions) as one key: the two sorted, joined by `+`. */
export const pairKey = (a: number | string, b: number | string) => [String(a), String(b)].sort().join("+")

/** The pairs whose changes conflict as text when both are made from the same base, by design. */
export const TEXTUAL_PAIRS: ReadonlyArray<string> = [pairKey(1, 2), pairKey(1, 5), pairKey(2, 5), pairKey(6, 9)]
/** The pairs green alone and red together, by design. */
export const SEMANTIC_PAIRS: ReadonlyArray<string> = [pairKey(3, 4), pairKey(7, 8)]

/**
 * The CI rule (a typecheck of sorts): every `import { a } from "./m.ts"` in src/ must name a module that exists
 * and exports `a`. Failing lines are the check's log.
 */
export const typeErrors = (tree: Pick<Tree, "files" | "read">): Array<string> =>
  sources(tree as Tree).flatMap((path) =>
    [...(tree.read(path) ?? "").matchAll(IMPORT)].flatMap((m) => {
      const module = tree.read(`src/${m[2]}`)
      if (module === undefined) return [`${path}: cannot find module ./${m[2]}`]
      const exported = exportsOf(module)
      return m[1]!.split(",").map((name) => name.trim()).filter((name) => !exported.includes(name)).map((name) => `${path}: ./${m[2]} has no export ${name}`)
    })
  )

export const ciVerdict = (tree: Pick<Tree, "files" | "read">) => {
  const errors = typeErrors(tree)
  return errors.length === 0
    ? { conclusion: "success" as const, title: "typecheck passed" }
    : {
      conclusion: "failure" as const,
      title: `typecheck: ${errors.length} error${errors.length === 1 ? "" : "s"}`,
      summary: errors[0]!,
      text: errors.join("\n")
    }
}

export const memoryTree = (initial: Readonly<Record<string, string>> = INITIAL_TREE): Tree & { readonly snapshot: () => Record<string, string> } => {
  const files = new Map(Object.entries(initial))
  return {
    files: () => [...files.keys()].sort(),
    read: (path) => files.get(path),
    write: (path, text) => void files.set(path, text),
    remove: (path) => void files.delete(path),
    snapshot: () => Object.fromEntries(files)
  }
}

/** A directory as a Tree (a worktree: `.git` is left out). */
export const directoryTree = (dir: string): Tree => {
  const walk = (at: string): Array<string> =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) =>
      entry.name === ".git" ? [] : entry.isDirectory() ? walk(join(at, entry.name)) : [relative(dir, join(at, entry.name))]
    )
  return {
    files: () => walk(dir).sort(),
    read: (path) => {
      try {
        return readFileSync(join(dir, path), "utf8")
      } catch {
        return undefined
      }
    },
    write: (path, text) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    },
    remove: (path) => rmSync(join(dir, path), { force: true })
  }
}

/** A commit's (or a tree's) files in a git repository, read with git. */
export const gitTree = (gitDir: string, treeish: string): Pick<Tree, "files" | "read"> => {
  const git = (...args: Array<string>) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
  return {
    files: () => git("ls-tree", "-r", "--name-only", treeish).split("\n").filter(Boolean),
    read: (path) => {
      try {
        return git("show", `${treeish}:${path}`)
      } catch {
        return undefined
      }
    }
  }
}

/** Whether two commits of `gitDir` conflict as text when merged (`git merge-tree --write-tree`). */
export const conflictsAsText = (gitDir: string, a: string, b: string) => {
  try {
    execFileSync("git", ["--git-dir", gitDir, "merge-tree", "--write-tree", a, b], { stdio: "ignore" })
    return false
  } catch (error) {
    if ((error as { status?: number }).status === 1) return true
    throw error
  }
}

/** The first-parent commits of `branch` after its first, oldest first, each with whether the CI rule fails on it. */
export const branchVerdicts = (gitDir: string, branch: string) =>
  execFileSync("git", ["--git-dir", gitDir, "rev-list", "--first-parent", "--reverse", branch], { encoding: "utf8" }).split("\n").filter(Boolean)
    .slice(1).map((sha) => ({ sha, failing: typeErrors(gitTree(gitDir, sha)).length > 0 }))
