/**
 * The page's static files, built by `scripts/build.mjs` into `dist/web/` (the browser code bundled by esbuild,
 * its lazily loaded chunks, the CSS with xterm's). Read once into memory when the server starts; served by
 * name only, so no request can reach another file.
 */
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { extname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
}

const TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".svg": "image/svg+xml"
}

/**
 * Where the built files are: beside the running bundle (dist/orch.mjs or one of its chunks), or, when orch
 * runs from its sources, in the checkout's dist/.
 */
export const findAssetsDir = (): string | undefined =>
  ["./web/", "../web/", "../../dist/web/"]
    .map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)))
    .find((dir) => existsSync(join(dir, "app.js")))

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })

/** Every file under `dir` by its path relative to it (`app.js`, `chunks/terminal-X.js`). */
export const loadAssets = (dir: string): ReadonlyMap<string, Asset> =>
  new Map(
    files(dir).filter((path) => TYPES[extname(path)] !== undefined).map((path) => {
      const body = readFileSync(path)
      return [relative(dir, path).split("\\").join("/"), {
        body,
        contentType: TYPES[extname(path)]!,
        etag: `"${createHash("sha1").update(body).digest("base64url").slice(0, 16)}"`
      }]
    })
  )
