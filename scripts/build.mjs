// Builds dist/: the `orch` command as one bundled ESM file (plus lazily loaded chunks), the library's entries
// (`orch`, `orch/effect`, `orch/testing`, `orch/plugins`, and each built-in plugin as a module,
// `orch/plugins/<slot>/<name>`) with their TypeScript declarations (dist/types/), and dist/web/: the dashboard's
// browser code and CSS (xterm's included), which the supervisor serves.
// Bundling is what makes `orch` start fast: loading effect's modules one file at a time costs over a second.
// Source maps are for working on orch (the sources are in the checkout, so the command's maps leave them out);
// package.json's `files` leaves every map out of the package: orch shows users no stack trace.
import { build } from "esbuild"
import { execFile, execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"

rmSync("dist", { recursive: true, force: true })

// effect/cli makes an `Intl.Segmenter` when it loads, only to measure help text; the first `Intl` object costs a
// process 15–40 ms (ICU data), so every command paid it. It is made on first use instead, and text of printable
// ASCII alone (all of orch's help) is measured without it: there, each character is one column.
const lazySegmenter = {
  name: "lazy-intl-segmenter",
  setup(b) {
    b.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]cli[\\/]CliOutput\.js$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8")
      const eager = /const graphemeSegmenter = \/\*#__PURE__\*\/new Intl\.Segmenter\(([^)]*)\);/
      const measure =
        "export const displayWidth = text => {\n  let length = 0;\n  for (const {\n    segment\n  } of graphemeSegmenter.segment(stripAnsi(text))) {"
      if (!eager.test(source) || source.split("graphemeSegmenter.segment(").length !== 2 || !source.includes(measure)) {
        throw new Error(`${path} no longer makes its Intl.Segmenter the way lazy-intl-segmenter expects: update the plugin`)
      }
      const contents = source
        .replace(eager, "let graphemeSegmenterMade;\nconst graphemeSegmenter = () => graphemeSegmenterMade ??= new Intl.Segmenter($1);")
        .replace(
          measure,
          measure
            .replace("  let length = 0;", "  const plain = stripAnsi(text);\n  if (/^[\\x20-\\x7e]*$/.test(plain)) return plain.length;\n  let length = 0;")
            .replace("graphemeSegmenter.segment(stripAnsi(text))", "graphemeSegmenter().segment(plain)")
        )
      return { contents, loader: "js" }
    })
  }
}
// Libraries only some commands use (a notifier's HTTP client, the email notifier, the dashboard's WebSocket server,
// the demo's GraphQL) are bundled apart, dist/vendor/<name>.cjs, which the command tree requires when it first uses
// one: in the tree they were half its 2.3 MB, which every command read and whose code cache it loaded.
const VENDORED = ["undici", "nodemailer", "ws", "graphql"]
const vendorApart = {
  name: "vendor-apart",
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${VENDORED.join("|")})$`) }, ({ path }) => ({ path: `./vendor/${path}.cjs`, external: true }))
  }
}
await build({
  entryPoints: Object.fromEntries(VENDORED.map((name) => [name, name])),
  outdir: "dist/vendor",
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  legalComments: "none",
  minify: true,
  logLevel: "warning"
})
// The command tree as one CommonJS file, which bin/orch.ts loads with a V8 code cache (src/cli/code-cache.ts); and
// the views as one of their own, which the entry runs for `status` and `queue ls`, plain or `--json`
// (src/cli/views-main.ts): the commands people run most to look load only what they print, not every command's
// definition.
const commandBundles = { cli: "src/cli/main.ts", views: "src/cli/views-main.ts" }
await Promise.all(
  Object.entries(commandBundles).map(([name, entry]) =>
    build({
      entryPoints: { [name]: entry },
      outfile: `dist/${name}.cjs`,
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node22",
      external: ["@lydell/node-pty"],
      define: { "import.meta.url": "__orchImportMetaUrl" },
      legalComments: "none",
      minify: true,
      sourcemap: "linked",
      sourcesContent: false,
      logLevel: "warning",
      // A vm script has no `import()`: a vendored library imported on first use is required instead.
      supported: { "dynamic-import": false },
      plugins: [lazySegmenter, vendorApart]
    })
  )
)
// V8 keeps a script's source for as long as the process runs (the supervisor's: for good), and one character outside
// Latin-1 makes all of it a two-byte string: 2.4 MB of heap for the 1.2 MB tree instead of 1.2 MB. esbuild escapes
// such characters in strings, not in regular expressions (the agents' screen parsers match `●`, `›`, `└` …): they
// are escaped here, which reads the same in a regular expression, a string or a template (its cooked text).
const unicodeEscapes = (text) => Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")
const asciiOnly = (file, code) =>
  code.replace(/[^\x00-\x7f]/gu, (char, at) => {
    if (code[at - 1] === "\\") throw new Error(`${file}: an escaped non-ASCII character at ${at}: escape it in the source instead`)
    return unicodeEscapes(char)
  })
const bundleHashes = Object.fromEntries(
  Object.keys(commandBundles).map((name) => {
    const file = `dist/${name}.cjs`
    writeFileSync(file, asciiOnly(file, readFileSync(file, "utf8")))
    return [name, createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 16)]
  })
)

// Each built-in plugin as a plugin module: src/plugins/modules/<slot>/<name>.ts → dist/plugins/<slot>/<name>.mjs.
const pluginModules = Object.fromEntries(
  readdirSync("src/plugins/modules", { recursive: true })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => [join("plugins", file.slice(0, -".ts".length)), join("src/plugins/modules", file)])
)

/**
 * What the ESM entries (the `orch` command's and the library's) share. A `require` for bundled CommonJS from
 * `process.getBuiltinModule`, not an ES import of node:module: such an import costs every command about a millisecond.
 */
const esmForNode = {
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  banner: { js: "const require = process.getBuiltinModule(\"node:module\").createRequire(import.meta.url);" }
}

const cli = build({
  entryPoints: {
    orch: "bin/orch.ts",
    index: "src/index.ts",
    plugins: "src/plugins/index.ts",
    ...pluginModules,
    "demo-agent": "src/demo/agent.ts"
  },
  ...esmForNode,
  external: ["@lydell/node-pty"],
  chunkNames: "chunks/[name]-[hash]",
  define: { ORCH_COMMAND_TREE_HASH: JSON.stringify(bundleHashes.cli), ORCH_VIEWS_HASH: JSON.stringify(bundleHashes.views) },
  legalComments: "none",
  minify: true,
  sourcemap: "linked",
  sourcesContent: false,
  logLevel: "warning",
  plugins: [lazySegmenter]
})
// `orch/effect` and `orch/testing` run in the program's Effect: the Layers, Effects and TestClock a program makes meet
// theirs. So they import `effect` and `@effect/platform-node` from node_modules (the package depends on both), the one
// copy the program imports too, rather than carry a copy of their own.
const library = build({
  entryPoints: { effect: "src/effect.ts", testing: "src/testing/index.ts" },
  ...esmForNode,
  external: ["@lydell/node-pty", "effect", "effect/*", "@effect/platform-node", "@effect/platform-node/*"],
  chunkNames: "chunks/library-[name]-[hash]",
  legalComments: "none",
  // Lines and names kept: a program's uncaught failure shows the line it came from, which minified is one of tens of
  // kilobytes (the package leaves the source maps out).
  minifySyntax: true,
  sourcemap: "linked",
  sourcesContent: false,
  logLevel: "warning"
})
const web = build({
  entryPoints: { app: "src/dashboard/web/main.ts" },
  outdir: "dist/web",
  bundle: true,
  splitting: true, // the terminal (xterm.js) loads only on session pages
  format: "esm",
  platform: "browser",
  target: ["chrome111", "firefox113", "safari16.4"],
  chunkNames: "chunks/[name]-[hash]",
  legalComments: "none",
  minify: true,
  sourcemap: "linked",
  logLevel: "warning"
})
// Declarations for the library's entries. The sources import `./x.ts`; a published declaration imports `./x.js`,
// which every moduleResolution (node16, nodenext, bundler) maps to `./x.d.ts`.
const types = promisify(execFile)(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "scripts/tsconfig.types.json"]).then(() => {
  for (const file of readdirSync("dist/types", { recursive: true }).filter((f) => f.endsWith(".d.ts"))) {
    const path = join("dist/types", file)
    const text = readFileSync(path, "utf8")
    const rewritten = text.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']*)\.ts\2/g, "$1$2$3.js$2")
    if (rewritten !== text) writeFileSync(path, rewritten)
  }
})
await Promise.all([cli, library, web, types])
chmodSync("dist/orch.mjs", 0o755)

// The shipped code caches: made the way a user's first run makes one, by the loader itself (src/cli/code-cache.ts),
// then put beside each bundle. A cache holds the functions its process compiled, so one process runs the commands
// people run most side by side: `--help` and `status --json` through the tree (the tree's cache also serves every
// command's start), and `status --json` and `queue ls` (for a user with no sessions) through the views' bundle. A cache's header names
// the Node that made it: another Node version never hands it to V8 (which would refuse it, slowly), and makes its
// own on its first run.
const cacheHome = mkdtempSync(join(tmpdir(), "orch-build-cache-"))
try {
  const maker = join(cacheHome, "make-cache.mjs")
  const bundle = (name) => `loadCommandTree(new URL(${JSON.stringify(pathToFileURL(`dist/${name}.cjs`).href)}), ${JSON.stringify(bundleHashes[name])})`
  await build({
    stdin: {
      contents: [
        `import { loadCommandTree } from "./src/cli/code-cache.ts"`,
        `const tree = ${bundle("cli")}`,
        `tree.main(["--help"])`,
        `tree.main(["status", "--json"])`,
        `const views = ${bundle("views")}`,
        `views.main(["status", "--json"])`,
        `views.main(["queue", "ls"])`
      ].join("\n"),
      resolveDir: ".",
      loader: "ts"
    },
    outfile: maker,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "warning"
  })
  mkdirSync(join(cacheHome, "home"))
  execFileSync(process.execPath, [maker], { env: { ...process.env, HOME: join(cacheHome, "home"), XDG_CACHE_HOME: cacheHome }, stdio: "ignore" })
  for (const name of Object.keys(commandBundles)) {
    const made = readdirSync(join(cacheHome, "orch")).find((file) => file.startsWith(`${name}-${bundleHashes[name]}-`))
    if (made === undefined) throw new Error(`the build made no code cache for dist/${name}.cjs`)
    copyFileSync(join(cacheHome, "orch", made), `dist/${name}.cjs.cache`) // not a rename: tmp may be another file system
  }
} finally {
  rmSync(cacheHome, { recursive: true, force: true })
}
