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

/** A file's room: actors/, a folder at the top of src/ (`src/config`), or a file at the top of src/ alone. */
export const roomOf = (path: string): string | undefined => {
  const parts = path.split("/")
  if (parts[0] === "actors") return "actors"
  if (parts[0] !== "src") return undefined
  return parts.length > 2 ? `src/${parts[1]}` : path
}

/** Imports of ours from one room into another (package.json and the like are in no room). */
const betweenRooms = (all: ReadonlyArray<Edge>) =>
  all.filter((edge) => {
    const from = roomOf(edge.from)
    const to = roomOf(edge.to)
    return edge.ours && from !== undefined && to !== undefined && from !== to
  })

const line = (edge: Edge) => `${edge.from} -> ${edge.to}`

/**
 * The rooms that import each other, directly or through others (the strongly connected components of the rooms'
 * graph, Tarjan's), each as its rooms and then every `file -> file` import between them.
 */
export const roomCycles = (all: ReadonlyArray<Edge>): Array<string> => {
  const crossings = betweenRooms(all)
  const next = new Map<string, Set<string>>()
  for (const edge of crossings) {
    const from = roomOf(edge.from)!
    next.set(from, (next.get(from) ?? new Set()).add(roomOf(edge.to)!))
  }
  const rooms = [...new Set(crossings.flatMap((edge) => [roomOf(edge.from)!, roomOf(edge.to)!]))].sort()
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const components: Array<Array<string>> = []
  const visit = (room: string) => {
    index.set(room, index.size)
    low.set(room, index.get(room)!)
    stack.push(room)
    for (const to of next.get(room) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(room, Math.min(low.get(room)!, low.get(to)!))
      } else if (stack.includes(to)) low.set(room, Math.min(low.get(room)!, index.get(to)!))
    }
    if (low.get(room) === index.get(room)) {
      const component: Array<string> = []
      let top: string
      do {
        top = stack.pop()!
        component.push(top)
      } while (top !== room)
      if (component.length > 1) components.push(component.sort())
    }
  }
  for (const room of rooms) if (!index.has(room)) visit(room)
  return components.flatMap((component) => [
    `rooms that import each other: ${component.join(", ")}`,
    ...crossings.filter((edge) => component.includes(roomOf(edge.from)!) && component.includes(roomOf(edge.to)!)).map(line)
  ])
}

/**
 * The rooms from the top down, as docs/architecture.md states them: a room imports only rooms after it. Two rooms
 * that do not import each other today still have their one direction here.
 */
export const ROOM_ORDER = [
  "src/index.ts",
  "src/effect.ts",
  "src/testing",
  "src/cli",
  "actors",
  "src/demo",
  "src/dashboard",
  "src/ipc",
  "src/sessions",
  "src/prompts",
  "src/plugins",
  "src/hosts",
  "src/store",
  "src/config",
  "src/process",
  "src/domain",
  "src/version.ts"
]

/** Imports against the order (into a room before the importer's), and rooms the order does not place. */
export const againstOrder = (all: ReadonlyArray<Edge>, order: ReadonlyArray<string>): Array<string> => {
  const crossings = betweenRooms(all)
  const unplaced = [...new Set(crossings.flatMap((edge) => [roomOf(edge.from)!, roomOf(edge.to)!]))].filter((room) => !order.includes(room)).sort()
  return [
    ...unplaced.map((room) => `${room} has no place in the rooms' order (docs/architecture.md, Import rules)`),
    ...crossings.filter((edge) => {
      const from = order.indexOf(roomOf(edge.from)!)
      const to = order.indexOf(roomOf(edge.to)!)
      return from >= 0 && to >= 0 && to < from
    }).map(line)
  ]
}

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

  it("src/hosts (connections, headroom, placement) never imports src/plugins, actors/, src/cli, src/dashboard or src/sessions", () => {
    assert.deepStrictEqual(crossing("src/hosts", (to) => within(to, "src/plugins", "actors", "src/cli", "src/dashboard", "src/sessions")), [])
  })

  it("src/store never imports src/plugins, src/sessions, actors/ or src/cli", () => {
    assert.deepStrictEqual(crossing("src/store", (to) => within(to, "src/plugins", "src/sessions", "actors", "src/cli")), [])
  })

  it("src/config owns its schemas: it imports only src/domain and src/process, which import nothing of ours", () => {
    assert.deepStrictEqual(crossing("src/config", (to) => !within(to, "src/config", "src/domain", "src/process")), [])
    assert.deepStrictEqual(crossing("src/process", (to) => !within(to, "src/process")), [])
  })

  it("the GitHub scm and tracker never import each other; what they share is src/plugins/repohost/", () => {
    assert.deepStrictEqual(crossing("src/plugins/scm", (to) => within(to, "src/plugins/tracker")), [])
    assert.deepStrictEqual(crossing("src/plugins/tracker", (to) => within(to, "src/plugins/scm")), [])
    assert.deepStrictEqual(crossing("src/plugins/repohost", (to) => to === "src/plugins/scm/repohost.ts" || to === "src/plugins/tracker/repohost.ts"), [])
  })
})

describe("rooms (src/<room>/, actors/): arrows run one way", () => {
  const synthetic = (...pairs: ReadonlyArray<readonly [string, string]>): Array<Edge> => pairs.map(([from, to]) => ({ from, to, ours: true }))

  it("finds a cycle through several rooms and names its imports, and none where arrows run one way", () => {
    const cycle = synthetic(
      ["src/a/x.ts", "src/b/y.ts"],
      ["src/b/y.ts", "src/c/z.ts"],
      ["src/c/z.ts", "src/a/w.ts"],
      ["src/d/v.ts", "src/a/x.ts"],
      ["src/a/x.ts", "src/a/w.ts"]
    )
    assert.deepStrictEqual(roomCycles(cycle), [
      "rooms that import each other: src/a, src/b, src/c",
      "src/a/x.ts -> src/b/y.ts",
      "src/b/y.ts -> src/c/z.ts",
      "src/c/z.ts -> src/a/w.ts"
    ])
    assert.deepStrictEqual(roomCycles(cycle.slice(0, 2)), [])
    assert.deepStrictEqual(roomCycles(synthetic(["actors/a.ts", "src/cli/b.ts"], ["src/cli/b.ts", "actors/c.ts"])), [
      "rooms that import each other: actors, src/cli",
      "actors/a.ts -> src/cli/b.ts",
      "src/cli/b.ts -> actors/c.ts"
    ])
  })

  it("no room imports a room that imports it back, directly or through others", () => {
    assert.deepStrictEqual(roomCycles(edges), [])
  })

  it("finds an import against the order, and a room the order does not place", () => {
    const order = ["src/a", "src/b"]
    assert.deepStrictEqual(againstOrder(synthetic(["src/a/x.ts", "src/b/y.ts"]), order), [])
    assert.deepStrictEqual(againstOrder(synthetic(["src/b/y.ts", "src/a/x.ts"], ["src/a/x.ts", "src/n/z.ts"]), order), [
      "src/n has no place in the rooms' order (docs/architecture.md, Import rules)",
      "src/b/y.ts -> src/a/x.ts"
    ])
  })

  it("every room imports only rooms after it in the order docs/architecture.md states", () => {
    assert.include(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"), ROOM_ORDER.join(" → "), "docs/architecture.md states the order")
    assert.deepStrictEqual(againstOrder(edges, ROOM_ORDER), [])
  })
})
