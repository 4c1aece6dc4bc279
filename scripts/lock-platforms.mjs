// Completes package-lock.json with the platform packages a registry mirror could not resolve.
//
// dprint and oxlint ship one optional package per platform. `npm install` against a mirror that lacks some of them
// skips those silently and writes a lock without them, and `npm ci` then refuses the lock as out of sync
// ("Missing: @dprint/darwin-arm64@ from lock file"). This adds each missing optional dependency with the os, cpu
// and libc its name gives, which is all `npm ci` needs to skip it on every other platform. Run it after any
// `npm install` that changes the lock, then check with `npm ci` in a clean clone.
import fs from "node:fs"

const lockPath = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(fs.readFileSync(lockPath, "utf8"))
const packages = lock.packages
const oses = new Set(["android", "darwin", "freebsd", "linux", "openharmony", "win32"])

// "@dprint/linux-arm64-musl" and "@oxlint/binding-linux-arm-gnueabihf" → os, cpu, libc
const platformOf = (name) => {
  const [os, cpu, ...rest] = name.replace(/^@[^/]+\//, "").replace(/^binding-/, "").split("-")
  if (!oses.has(os) || cpu === undefined) throw new Error(`no platform in the package name ${name}`)
  const suffix = rest.join("-")
  const libc = os !== "linux" ? undefined : /musl/.test(suffix) ? "musl" : /gnu|glibc/.test(suffix) ? "glibc" : undefined
  return { os, cpu, libc }
}

const added = []
for (const entry of Object.values(packages)) {
  for (const [dependency, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dependency}`
    if (packages[key] !== undefined) continue
    const { os, cpu, libc } = platformOf(dependency)
    packages[key] = { version, cpu: [cpu], dev: entry.dev, ...(libc ? { libc: [libc] } : {}), optional: true, os: [os] }
    added.push(`${dependency}@${version}`)
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)))
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n")
console.log(added.length === 0 ? "package-lock.json lists every platform package" : `added to package-lock.json: ${added.join(", ")}`)
