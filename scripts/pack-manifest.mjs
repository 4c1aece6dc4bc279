// The package's manifest without `prepare`, for the tarball only. `prepare` builds dist/ after `npm install` in a
// clone; in a tarball it would be an install script that npm 11 asks every user to allow (and scripts/ is not
// packed, so allowing it would fail). `prepack` builds and strips it; `postpack` puts package.json back.
import { readFileSync, renameSync, writeFileSync } from "node:fs"

const manifest = new URL("../package.json", import.meta.url)
const kept = new URL("../package.json.before-pack", import.meta.url)

if (process.argv[2] === "strip") {
  const text = readFileSync(manifest, "utf8")
  writeFileSync(kept, text)
  const { prepare: _prepare, ...scripts } = JSON.parse(text).scripts
  writeFileSync(manifest, `${JSON.stringify({ ...JSON.parse(text), scripts }, null, 2)}\n`)
} else if (process.argv[2] === "restore") {
  renameSync(kept, manifest)
} else {
  throw new Error("usage: node scripts/pack-manifest.mjs strip|restore")
}
