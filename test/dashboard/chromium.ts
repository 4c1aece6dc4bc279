/**
 * Headless Chromium for the dashboard's browser tests: Debian's `chromium` at /usr/bin/chromium, driven by
 * playwright-core (never a browser download). `.ci/run` installs it; without it the browser tests skip and
 * say why.
 */
import * as Effect from "effect/Effect"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"
export const hasChromium = existsSync(CHROMIUM)
export const NO_CHROMIUM = `browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    // Running as root needs --no-sandbox; without the background-networking flags Chromium's own connections
    // (updates, sync) get refused many at a time and slow everything down.
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })

/** Screenshots go to test-artifacts/dashboard/ (git-ignored), for people to look at. */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(() => {
    const dir = join("test-artifacts", "dashboard")
    mkdirSync(dir, { recursive: true })
    return page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
  })

/** Runs `f` with the page, as an Effect. */
export const on = <A>(page: Page, f: (page: Page) => Promise<A>) => Effect.promise(() => f(page))
