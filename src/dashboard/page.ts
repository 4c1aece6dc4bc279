/**
 * The HTML every dashboard page starts from: the stylesheet, the bundled script (dist/web, see assets.ts) and
 * what the script needs to know at once (`Boot`). The script draws the board or a session page from the live
 * stream. The saved theme is applied before the first paint, so a dark page never flashes white.
 */
import { createHash } from "node:crypto"
import type { Boot } from "./api.ts"

/** Applies the saved theme before the first paint; the only inline script, allowed by its hash in the CSP. */
const THEME_SCRIPT = `try{var t=localStorage.getItem("orch-theme");if(t)document.documentElement.dataset.theme=t}catch(e){}`

/**
 * What a page may load: its own scripts (and the theme script, by hash), its own styles (xterm.js adds style
 * elements, hence 'unsafe-inline' for styles only), and connections to itself and to the two terminal sockets.
 */
export const contentSecurityPolicy = (terminalPort: number): string =>
  [
    "default-src 'none'",
    `script-src 'self' 'sha256-${createHash("sha256").update(THEME_SCRIPT).digest("base64")}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ws://*:${terminalPort} wss://*:${terminalPort}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; ")

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c")

export const renderPage = (boot: Boot): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>orch</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='6' fill='%234f6bed'/%3E%3C/svg%3E">
<link rel="stylesheet" href="/assets/app.css">
<script>${THEME_SCRIPT}</script>
<script id="orch-boot" type="application/json">${scriptJson(boot)}</script>
<script type="module" src="/assets/app.js"></script>
</head><body><div id="app"></div><noscript>The orch dashboard needs JavaScript.</noscript></body></html>
`

/** Shown when dist/web is missing: orch was run from sources that were never built. */
export const unbuiltPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>orch</title></head>
<body><p>The dashboard's files are not built. Run <code>npm run build</code> in orch's directory, then reload.</p></body></html>
`
