/**
 * The import rules of DESIGN.md, read from the source: every static import and re-export (`import type` too)
 * and every `import("…")` of a literal path in src/ and actors/, resolved to the file it names.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { assert, describe, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "../..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path)
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

/** `import … from "x"`, `import type … from "x"`, `export … from "x"`, `import "x"`: statements begin a line. */
const STATIC = /^[ \t]*(?:import|export)\s+(?:type\s+)?[\w$\s{},*]*?\bfrom\s*["']([^"'\n]+)["']|^[ \t]*import\s*["']([^"'\n]+)["']/gm
const DYNAMIC = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g

export interface Edge {
  readonly from: string
  /** The imported file, relative to the repository; a package name when it is not ours. */
  readonly to: string
  readonly ours: boolean
}

export const importsOf = (file: string, text: string): Array<Edge> =>
  [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)].map((match) => {
    const specifier = (match[1] ?? match[2])!
    if (!specifier.startsWith(".")) return { from: file, to: specifier, ours: false }
    return { from: file, to: relative(ROOT, resolve(ROOT, dirname(file), specifier)), ours: true }
  })

const edges = ["src", "actors"].flatMap(sourceFiles).flatMap((file) => importsOf(file, readFileSync(join(ROOT, file), "utf8")))

const within = (path: string, ...dirs: ReadonlyArray<string>) => dirs.some((dir) => path === dir || path.startsWith(`${dir}/`))

/** Imports of ours from files under `from` into any of `forbidden`, as `file -> imported file` lines. */
const crossing = (from: string, forbidden: (to: string) => boolean) =>
  edges.filter((edge) => edge.ours && within(edge.from, from) && forbidden(edge.to)).map((edge) => `${edge.from} -> ${edge.to}`)

describe("import rules (DESIGN.md: imports point one way)", () => {
  it("reads every kind of import", () => {
    const from = (file: string) => edges.filter((edge) => edge.from === file).map((edge) => edge.to)
    assert.include(from("actors/app.ts"), "src/dashboard/server.ts", "import { … } from")
    assert.include(from("src/dashboard/server.ts"), "src/store/Inbox.ts", "import type { … } from")
    assert.include(from("src/dashboard/terminals.ts"), "src/dashboard/terminal-viewer.ts", "export { … } from")
    assert.include(from("src/cli/notify.ts"), "src/store/Inbox.ts", "import(\"…\")")
    assert.deepStrictEqual(
      importsOf(
        "src/x/a.ts",
        `import "./side.ts"\nexport * from "../y/b.ts"\nimport type {\n  A,\n  B as C\n} from "./t.ts"\n// import x from "./commented.ts"\n * import y from "./doc.ts"\nconst s = Array.from("z")\n`
      )
        .map((edge) => edge.to),
      ["src/x/side.ts", "src/y/b.ts", "src/x/t.ts"]
    )
  })

  it("src/domain imports nothing of ours outside src/domain", () => {
    assert.deepStrictEqual(crossing("src/domain", (to) => !within(to, "src/domain")), [])
  })

  it("src/plugins never imports actors/, src/cli or src/dashboard", () => {
    assert.deepStrictEqual(crossing("src/plugins", (to) => within(to, "actors", "src/cli", "src/dashboard")), [])
  })

  it("src/dashboard never imports src/plugins (terminals come through the runtime port, the inbox is a store)", () => {
    assert.deepStrictEqual(crossing("src/dashboard", (to) => within(to, "src/plugins")), [])
  })

  it("src/hosts (connections, placement, tmux on a host) never imports actors/, src/cli, src/dashboard or src/sessions", () => {
    assert.deepStrictEqual(crossing("src/hosts", (to) => within(to, "actors", "src/cli", "src/dashboard", "src/sessions")), [])
  })

  it("src/store never imports src/plugins, src/sessions, actors/ or src/cli", () => {
    assert.deepStrictEqual(crossing("src/store", (to) => within(to, "src/plugins", "src/sessions", "actors", "src/cli")), [])
  })
})
