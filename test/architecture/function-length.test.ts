/**
 * No function over 150 lines in the folders below (issue 23: a procedure is a service of short steps, not one closure
 * of hundreds of lines). A function's length is its body's, from its first line to its last, the functions inside it
 * included: a closure that defines every procedure is as long as all of them. Read with the TypeScript parser of
 * vitest's bundler (rolldown's `parseAst`, oxc's), so strings, templates, regular expressions and comments never
 * count as braces.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseAst } from "rolldown/parseAst"
import { assert, describe, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "../..")

/** The folders held to the limit, each with everything under it. */
export const DIRECTORIES = ["src/sessions"]
export const MAX_FUNCTION_LINES = 150

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
  readonly [key: string]: unknown
}

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"])

/** The name a function is known by: its own, or that of the binding, property or method it is the value of. */
const nameOf = (node: Node): string | undefined => {
  const id = (node.id ?? node.key) as Node | null | undefined
  return id !== null && id !== undefined && typeof id.name === "string" ? id.name : undefined
}

/** The functions of `text` whose bodies are longer than `limit` lines, as `file:line name (n lines)`, outermost first. */
export const longFunctions = (file: string, text: string, limit: number): Array<string> => {
  const lineStarts = [0, ...[...text.matchAll(/\n/g)].map((match) => match.index + 1)]
  const lineOf = (offset: number) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = Math.ceil((low + high) / 2)
      if (lineStarts[middle]! <= offset) low = middle
      else high = middle - 1
    }
    return low + 1
  }
  const found: Array<string> = []
  const visit = (value: unknown, name: string | undefined): void => {
    if (Array.isArray(value)) return value.forEach((item) => visit(item, name))
    if (!isNode(value)) return
    const named = nameOf(value) ?? name
    if (FUNCTIONS.has(value.type) && isNode(value.body)) {
      const lines = lineOf(value.body.end - 1) - lineOf(value.body.start) + 1
      if (lines > limit) found.push(`${file}:${lineOf(value.start)} ${named ?? "(anonymous)"} (${lines} lines)`)
    }
    for (const [key, child] of Object.entries(value)) if (key !== "type") visit(child, named)
  }
  visit(parseAst(text, { lang: "ts" }, file), undefined)
  return found
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

describe(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
  it("counts a function's body, the functions inside it included, and names it", () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const a${i} = "}{" // }`).join("\n")
    const text = [
      `const short = () => {\n${body(4)}\n}`,
      `export const outer = Effect.fn("X")(function*() {\n${body(3)}\n  const inner = (x: number) => {\n${body(4)}\n  }\n})`,
      `function declared() {\n  return /}/.test(\`\${"{"}\`)\n}`,
      "class A {\n  method() {\n    return 1\n  }\n}"
    ].join("\n")
    assert.deepStrictEqual(longFunctions("x.ts", text, 4), ["x.ts:5 outer (7 lines)"])
    assert.deepStrictEqual(longFunctions("x.ts", text, 7), [])
    assert.deepStrictEqual(longFunctions("x.ts", text, 2), [
      "x.ts:1 short (4 lines)",
      "x.ts:5 outer (7 lines)",
      "x.ts:7 inner (4 lines)",
      "x.ts:12 declared (3 lines)",
      "x.ts:16 method (3 lines)"
    ])
  })

  it.each(DIRECTORIES)("%s holds none", (dir) => {
    const files = sourceFiles(dir)
    assert.isNotEmpty(files)
    assert.deepStrictEqual(files.flatMap((file) => longFunctions(file, readFileSync(join(ROOT, file), "utf8"), MAX_FUNCTION_LINES)), [])
  })
})
