// Builds dist/: the `orch` command as one bundled ESM file (plus lazily loaded chunks) and the library entry.
// Bundling is what makes `orch` start fast: loading effect's modules one file at a time costs over a second.
import { build } from "esbuild"
import { chmodSync, rmSync } from "node:fs"

rmSync("dist", { recursive: true, force: true })
await build({
  entryPoints: { orch: "bin/orch.ts", index: "src/index.ts", "demo-agent": "src/demo/agent.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["node-pty"],
  chunkNames: "chunks/[name]-[hash]",
  banner: { js: "import { createRequire as __orchCreateRequire } from \"node:module\"; const require = __orchCreateRequire(import.meta.url);" },
  legalComments: "none",
  minify: true,
  sourcemap: "linked",
  logLevel: "warning"
})
chmodSync("dist/orch.mjs", 0o755)
