/**
 * The dashboard in headless Chromium against a real supervisor, sessions of the `command` agent in tmux and
 * the repohost emulator: the board and its live changes, a pull request through to a merge from the page, the
 * inbox with browser notifications, reconnecting after the supervisor restarts, and a session page whose
 * terminal takes typing and whose buttons send, kill and restore. Screenshots land in test-artifacts/dashboard/.
 */
import { afterAll, afterEach, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContextOptions, Page } from "playwright-core"
import { parse, stringify } from "yaml"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git, gitAsync, makeRepo } from "../support/repo.ts"
import { hasChromium, launchChromium, NO_CHROMIUM, on, screenshot } from "./chromium.ts"
import { dashboardClient } from "./client.ts"

if (!hasChromium) console.warn(NO_CHROMIUM)

/** Records the browser notifications the page shows (and still shows them). */
const NOTIFICATION_SPY = () => {
  const Real = window.Notification
  const shown: Array<string> = []
  ;(window as unknown as { shownNotifications: Array<string> }).shownNotifications = shown
  window.Notification = class extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options)
      shown.push(title)
    }
  } as typeof Notification
}

const text = (page: Page, selector: string) => on(page, (p) => p.locator(selector).innerText().then((t) => t.replace(/\u00a0/g, " ")))
const waitFor = (page: Page, selector: string, what: string) =>
  on(
    page,
    (p) =>
      p.waitForSelector(selector, { timeout: 15_000 }).then(() => undefined, () => Promise.reject(new Error(`the page never showed ${what} (${selector})`)))
  )
const waitForText = (page: Page, selector: string, expected: string) =>
  on(page, (p) =>
    p.waitForFunction(
      ([sel, want]) => [...document.querySelectorAll(sel!)].some((e) => (e as HTMLElement).innerText.replace(/\u00a0/g, " ").includes(want!)),
      [selector, expected],
      { timeout: 15_000 }
    ).then(() => undefined, () => Promise.reject(new Error(`"${expected}" never appeared in ${selector}`))))

describe.skipIf(!hasChromium)("dashboard in Chromium", () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  // The pages' Content-Security-Policy must never have to refuse anything the dashboard itself does.
  const cspViolations: Array<string> = []
  afterEach(() => {
    expect(cspViolations.splice(0)).toEqual([])
  })
  const newPage = (options: BrowserContextOptions = {}, setup: (page: Page) => Promise<unknown> = async () => {}) =>
    Effect.acquireRelease(
      Effect.promise(() => browser.newContext({ viewport: { width: 1440, height: 900 }, ...options })),
      (context) => Effect.promise(() => context.close())
    ).pipe(
      Effect.flatMap((context) =>
        Effect.promise(async () => {
          const page = await context.newPage()
          page.on("console", (message) => {
            if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
          })
          await setup(page)
          return page
        })
      )
    )

  it.live("the board: groups and counts, changes without reload, a PR through to a merge, the inbox, reconnecting", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }], ci: ({ message }) => (message.includes("[fail]") ? "failure" : "success") })
        ),
        (e) => Effect.promise(() => e.close())
      )
      for (const title of ["Fix the login redirect loop", "Add a dark theme to the settings page", "Speed up the search index"]) {
        emulator.addIssue("acme/app", { title })
      }
      s.writeConfig({ tracker: { plugin: "repohost", apiUrl: emulator.url }, scm: { plugin: "repohost", apiUrl: emulator.url } })
      writeFileSync(s.config, `pollIntervalMs: 1000\n${readFileSync(s.config, "utf8")}`)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["batch-spawn", "app", "1", "2", "3"])).code, 0)
      const api = dashboardClient(s)

      const page = yield* newPage({}, async (page) => {
        await page.context().grantPermissions(["notifications"], { origin: api.base })
        await page.addInitScript(NOTIFICATION_SPY)
      })
      yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
      assert.strictEqual(new URL(page.url()).search, "", "the token left the address bar")
      yield* on(page, (p) => p.waitForFunction(() => document.querySelectorAll("[data-list=working] [data-session]").length === 3))
      assert.deepStrictEqual(yield* on(page, (p) => p.locator("[data-count]").allInnerTexts()), ["0", "0", "3", "0"])
      assert.include(yield* text(page, "[data-session=app-1]"), "Fix the login redirect loop")
      assert.include(yield* text(page, ".orchestrators"), "app-orchestrator")
      yield* waitFor(page, ".connection[data-connection=live]", "that it is live")

      // A state change on the supervisor shows without a reload: app-3's agent waits for input.
      appendFileSync(join(s.dataDir, "sessions", "app", "app-3", "activity.jsonl"), `${JSON.stringify({ activity: "waiting_input" })}\n`)
      yield* waitFor(page, "[data-list=needs] [data-session=app-3][data-status=needs_input]", "app-3 under needs you")
      assert.deepStrictEqual(yield* on(page, (p) => p.locator("[data-count]").allInnerTexts()), ["1", "0", "2", "0"])

      // app-1 gets a pull request whose CI fails: the card says so; its page links the failing check.
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      const commit = (message: string) => {
        git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", message)
        return gitAsync(worktree, "push", "-q", "origin", "HEAD:feat/1")
      }
      yield* commit("first try [fail]")
      const created = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, {
          method: "POST",
          body: JSON.stringify({ head: "feat/1", base: "main", title: "Fix the login redirect loop" })
        })
      )
      const prNumber = ((yield* Effect.promise(() => created.json())) as { number: number }).number
      yield* waitForText(page, "[data-session=app-1] .check", "CI failing")
      assert.include(yield* text(page, "[data-session=app-1]"), `PR #${prNumber}`)
      yield* on(page, (p) => p.click("[data-session=app-1] .title"))
      yield* waitFor(page, ".session-page[data-session=app-1] .checks a", "the failing check's link")
      assert.match((yield* on(page, (p) => p.getAttribute(".checks a", "href")))!, /^http:\/\/127\.0\.0\.1:\d+\//)
      yield* waitForText(page, ".timeline", "reaction.triggered")

      // Fixed, then a review asks for changes: the thread shows on the session's page.
      yield* commit("second try")
      yield* waitForText(page, ".pr-line", "CI passing")
      emulator.review("acme/app", prNumber, "CHANGES_REQUESTED", "Almost there.", [{ path: "src/login.ts", line: 12, body: "Please name the redirect limit." }])
      yield* waitForText(page, ".threads", "Please name the redirect limit.")
      assert.include(yield* text(page, ".threads"), "src/login.ts:12")
      yield* waitFor(page, ".terminal-host[data-terminal-status=connected]", "the terminal")
      yield* screenshot(page, "session-pr")

      // Approved and green: the page offers the merge, and merging from it merges the PR.
      emulator.review("acme/app", prNumber, "APPROVED")
      yield* waitFor(page, "[data-action=merge]", "the merge button")
      yield* on(page, (p) => p.click("[data-action=merge]"))
      yield* waitFor(page, ".session-head [data-status=merged]", "the merged session")
      assert.isTrue(emulator.pull("acme/app", prNumber)?.merged)
      assert.isTrue(s.events().some((e) => e.type === "pr.merged" && e.sessionId === "app-1"))

      // The inbox: an urgent notification counts, shows as a browser notification, and clears.
      yield* on(page, (p) => p.click(".back"))
      const unread = Number(yield* on(page, (p) => p.getAttribute("#unread", "data-unread")))
      assert.isAbove(unread, 0, "app-3 waiting for input was urgent")
      // to `hosted` only: the default routing also names `desktop`, which fails on a machine without notify-send
      assert.strictEqual((yield* s.orch(["notify", "--priority", "urgent", "--notifier", "hosted", "The", "disk", "is", "almost", "full"])).code, 0)
      yield* waitFor(page, `#unread[data-unread='${unread + 1}']`, "one more unread notification")
      assert.include(
        yield* on(page, (p) => p.evaluate(() => (window as unknown as { shownNotifications: Array<string> }).shownNotifications)),
        "orch test notification"
      )
      yield* on(page, (p) => p.click("[data-action=inbox]"))
      yield* waitForText(page, ".note[data-read=false]", "The disk is almost full")
      yield* screenshot(page, "inbox")
      yield* on(page, (p) => p.click("[data-action=mark-all-read]"))
      yield* waitFor(page, "#unread[data-unread='0']", "the inbox cleared")
      assert.deepStrictEqual(JSON.parse((yield* s.orch(["notifications", "--unread", "--json"])).stdout), [])
      yield* on(page, (p) => p.click(".drawer [aria-label=Close]"))
      yield* waitFor(page, "[data-list=done] [data-session=app-1]", "the merged session under done")
      yield* screenshot(page, "board")
      yield* on(page, (p) => p.click("[data-action=theme]").then(() => p.click("[data-action=theme]")))
      assert.strictEqual(yield* on(page, (p) => p.evaluate(() => document.documentElement.dataset.theme)), "dark")
      yield* screenshot(page, "board-dark")

      // The supervisor goes away and comes back: the page says so (its live stream's last word), then catches up by itself.
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      yield* waitFor(page, ".connection[data-connection=stopped]", "that orch stopped")
      assert.include(yield* text(page, ".connection"), "orch stopped")
      appendFileSync(join(s.dataDir, "sessions", "app", "app-2", "activity.jsonl"), `${JSON.stringify({ activity: "waiting_input" })}\n`)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      yield* waitFor(page, ".connection[data-connection=live]", "that it is live again")
      yield* waitFor(page, "[data-list=needs] [data-session=app-2]", "what changed while it was away")

      // A new token (the old one deleted): the page says it is signed out, not just disconnected.
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      rmSync(join(s.dataDir, "token"))
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      yield* waitFor(page, ".connection[data-connection=signed-out]", "that it is signed out")
      assert.include(yield* text(page, ".connection"), "orch start")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 120_000)

  it.live(
    "the queue: entries in order with what each waits on, live; an admitted one leaves it for the board; a rate-limited card says when it continues",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox({ config: { maxSessions: 1 } })
        assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
        assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
        const api = dashboardClient(s)
        const page = yield* newPage()
        yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
        yield* waitFor(page, "[data-session=app-1]", "app-1's card")
        assert.isTrue(yield* on(page, (p) => p.locator(".queue").isHidden()), "no queue, no section")

        // Queued while the page is open: it shows at once, then with the budget it waits on.
        assert.strictEqual((yield* s.orch(["queue", "add", "app", "2"])).code, 0)
        assert.strictEqual((yield* s.orch(["queue", "add", "app", "3", "--priority", "5"])).code, 0)
        yield* waitForText(page, ".queue li[data-entry=q-1] .waiting", "waiting for a free session: 1 running, maxSessions 1")
        yield* waitForText(page, ".queue li[data-entry=q-2] .waiting", "waiting for a free session: 1 running, maxSessions 1")
        assert.deepStrictEqual(yield* on(page, (p) => p.locator(".queue li .entry").allInnerTexts()), ["app 3", "app 2"], "priority first")
        assert.include(yield* text(page, ".queue li[data-entry=q-2]"), "priority 5")

        // A session ends: the first entry is admitted, leaves the queue and shows on the board.
        assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
        yield* waitFor(page, "[data-list=working] [data-session=app-2]", "the admitted entry's session")
        yield* on(page, (p) => p.waitForFunction(() => document.querySelectorAll(".queue li").length === 1, undefined, { timeout: 15_000 }))
        assert.deepStrictEqual(yield* on(page, (p) => p.locator(".queue li .entry").allInnerTexts()), ["app 2"])
        assert.strictEqual(s.record("app-2").issueId, "3")

        // Its agent says its provider turned it away: the card says when orch tells it to continue.
        appendFileSync(
          join(s.dataDir, "sessions", "app", "app-2", "activity.jsonl"),
          `${JSON.stringify({ ts: new Date().toISOString(), report: "rate_limited", note: "429 · resets 11:59pm" })}\n`
        )
        yield* waitFor(page, "[data-list=working] [data-session=app-2][data-status=rate_limited]", "app-2 rate-limited, still under Working")
        yield* waitForText(page, "[data-session=app-2] .limit", "orch tells it to continue at")
        assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
      }),
    90_000
  )

  it.live("the merge train: its cars in order with what the head car waits on, live; no cars, no section", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const api = dashboardClient(s)
      const page = yield* newPage()
      yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
      yield* waitFor(page, "[data-session=app-1]", "app-1's card")
      assert.isTrue(yield* on(page, (p) => p.locator(".train").isHidden()), "no train, no section")

      // The train as the supervisor writes it (this project has no mergeTrain: nothing else writes it).
      const trainFile = join(s.dataDir, "trains", "app.json")
      const car = (n: number, step?: object) => ({
        sessionId: `app-${n}`,
        prNumber: n + 10,
        branch: `feat/${n}`,
        priority: 0,
        joinedAt: new Date().toISOString(),
        seq: n,
        ...(step !== undefined ? { step } : {})
      })
      const head = "1a2b3c4d5e6f7081920a1b2c3d4e5f6071829304"
      const main = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
      writeFileSync(trainFile, JSON.stringify({ projectId: "app", next: 3, cars: [car(2), car(1, { kind: "checking", head, base: main })], left: [] }))
      yield* waitForText(page, ".train li[data-car=app-1] .waiting", "waits for checks on 1a2b3c4 (up to date with 9f8e7d6)")
      assert.deepStrictEqual(
        yield* on(page, (p) => p.locator(".train li .entry").allInnerTexts()),
        ["app app-1 PR #11", "app app-2 PR #12"],
        "the head car first"
      )
      assert.include(yield* text(page, ".train li[data-car=app-2] .waiting"), "waits behind 1 car")
      assert.include(yield* text(page, ".train header"), "Merge train")
      yield* screenshot(page, "merge-train")

      writeFileSync(trainFile, JSON.stringify({ projectId: "app", next: 3, cars: [], left: [] }))
      yield* on(page, (p) => p.waitForFunction(() => (document.querySelector(".train") as HTMLElement | null)?.hidden === true, undefined, { timeout: 15_000 }))
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 90_000)

  it.live("the host filter: with other machines configured, the board shows the sessions of the host chosen", () =>
    Effect.gen(function*() {
      // Host b refuses at once (nothing listens on port 1): its session reads unknown; the filter still places it.
      const s = yield* sandbox({ config: { hosts: { b: { ssh: "orch@127.0.0.1:1" } } } })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "1", "--host", "local"])).code, 0)
      // A session on b, as a spawn there leaves its record (orch cannot reach b to make one here).
      const onB = { ...s.record("app-1"), sessionId: "app-7", issueId: "7", branch: "feat/7", host: "b" }
      mkdirSync(join(s.dataDir, "sessions", "app", "app-7"), { recursive: true })
      writeFileSync(join(s.dataDir, "sessions", "app", "app-7", "session.json"), JSON.stringify(onB))
      const api = dashboardClient(s)
      const page = yield* newPage()
      yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
      yield* waitFor(page, "[data-session=app-7]", "the session on b")
      yield* waitFor(page, "[data-session=app-1]", "the local session")
      assert.deepStrictEqual(yield* on(page, (p) => p.locator("select.host-filter option").allInnerTexts()), ["All hosts", "local", "b"])
      assert.include(yield* text(page, "[data-session=app-7]"), "on b")

      yield* on(page, (p) => p.selectOption("select.host-filter", "b"))
      yield* on(page, (p) => p.waitForFunction(() => document.querySelector("[data-session=app-1]") === null, undefined, { timeout: 15_000 }))
      assert.strictEqual(new URL(page.url()).searchParams.get("host"), "b")
      assert.isTrue(yield* on(page, (p) => p.locator("[data-session=app-7]").isVisible()))

      yield* on(page, (p) => p.selectOption("select.host-filter", "local"))
      yield* waitFor(page, "[data-session=app-1]", "the local session again")
      yield* on(page, (p) => p.waitForFunction(() => document.querySelector("[data-session=app-7]") === null, undefined, { timeout: 15_000 }))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)

  it.live(
    "the project filter; a session page: typing in its terminal reaches tmux and the output shows; send, kill and restore; the orchestrator's page; a phone",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox()
        // A second project, to filter the board by.
        const web = makeRepo(s.root, "web")
        const config = parse(readFileSync(s.config, "utf8"))
        config.projects.web = { ...config.projects.app, repo: "acme/web", path: web.path }
        writeFileSync(s.config, stringify(config))
        const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
        assert.strictEqual(started.code, 0)
        assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
        assert.strictEqual((yield* s.orch(["spawn", "web", "5"])).code, 0)
        const api = dashboardClient(s)
        const page = yield* newPage()
        yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
        yield* waitFor(page, "[data-session=web-1]", "the other project's session")
        yield* on(page, (p) => p.selectOption(".project-filter", "web"))
        yield* on(page, (p) => p.waitForFunction(() => document.querySelectorAll(".board [data-session]").length === 1))
        assert.deepStrictEqual(yield* on(page, (p) => p.locator("[data-count]").allInnerTexts()), ["0", "0", "1", "0"])
        assert.strictEqual(new URL(page.url()).search, "?project=web")
        yield* on(page, (p) => p.selectOption(".project-filter", ""))
        yield* on(page, (p) => p.waitForFunction(() => document.querySelectorAll(".board [data-session]").length === 2))

        yield* on(page, (p) => p.click("[data-session=app-1] .session-id"))
        yield* waitFor(page, ".terminal-host[data-terminal-status=connected]", "a connected terminal")
        yield* waitForText(page, ".xterm-rows", "ready app-1")

        yield* on(page, (p) => p.click(".terminal-host"))
        yield* on(page, (p) => p.keyboard.type("hello through the browser"))
        yield* on(page, (p) => p.keyboard.press("Enter"))
        yield* eventually("the typed line in the tmux pane", () => s.screen("app-1").includes("got: hello through the browser"))
        yield* waitForText(page, ".xterm-rows", "got: hello through the browser")

        yield* on(page, (p) => p.fill("textarea[name=message]", "a message from the send box"))
        yield* on(page, (p) => p.click("[data-action=send]"))
        yield* eventually("the sent message in the pane", () => s.screen("app-1").includes("got: a message from the send box"))
        yield* waitForText(page, ".toast", "Sent.")
        yield* waitForText(page, ".timeline", "session.message_sent")
        yield* waitForText(page, ".xterm-rows", "got: a message from the send box")
        yield* screenshot(page, "session")

        // A phone opens the same terminal: its own tmux client at its own size, next to the laptop's.
        const phone = yield* newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })
        yield* on(phone, (p) => p.goto(`${api.base}/sessions/app-1?token=${api.token}`))
        yield* waitForText(phone, ".xterm-rows", "got: a message from the send box")
        const widths = () =>
          execFileSync("tmux", ["-S", s.socket, "list-clients", "-t", "=app-1", "-F", "#{client_width}"], { encoding: "utf8" }).trim().split("\n").map(Number)
            .sort((a, b) => a - b)
        yield* eventually("a narrow and a wide client", () => {
          const w = widths()
          return w.length === 2 && w[0]! < 60 && w[1]! > 100
        })
        yield* screenshot(phone, "session-phone")
        yield* on(phone, (p) => p.goto(`${api.base}/`))
        yield* waitFor(phone, "[data-session=app-1]", "the board on a phone")
        yield* screenshot(phone, "board-phone")

        yield* on(page, (p) => p.click("[data-action=kill]"))
        yield* on(page, (p) => p.click("[data-action=kill]"))
        yield* waitFor(page, ".session-head [data-status=killed]", "the killed session")
        yield* waitFor(page, ".terminal-host[data-terminal-status=none]", "no terminal")
        assert.notInclude(s.sessions(), "app-1")
        yield* on(page, (p) => p.click("[data-action=restore]"))
        yield* waitFor(page, ".session-head [data-status=working]", "the restored session")
        yield* waitFor(page, ".terminal-host[data-terminal-status=connected]", "the terminal again")
        yield* waitForText(page, ".xterm-rows", "ready app-1")
        assert.include(s.sessions(), "app-1")

        // The supervisor restarts: the terminal says it is disconnected, then reconnects by itself.
        const stopped = yield* s.orch(["stop"])
        assert.strictEqual(stopped.code, 0, stopped.stderr)
        yield* waitFor(page, ".terminal-host[data-terminal-status=disconnected]", "the terminal disconnected")
        assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
        yield* waitFor(page, ".terminal-host[data-terminal-status=connected]", "the terminal reconnected")
        yield* on(page, (p) => p.click(".terminal-host"))
        yield* on(page, (p) => p.keyboard.type("after the restart\n"))
        yield* eventually("typing after the reconnect", () => s.screen("app-1").includes("got: after the restart"))

        // `orch start` printed (and would open) the orchestrator's own page, with its terminal.
        const orchestratorUrl = /^orchestrator page: (.+)$/m.exec(started.stdout)![1]!
        yield* on(page, (p) => p.goto(orchestratorUrl))
        yield* waitForText(page, ".session-head", "Orchestrator of app")
        yield* waitForText(page, ".xterm-rows", "ready app-orchestrator")
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      }),
    90_000
  )

  it.live("predicted conflicts: on both sessions' cards, and on the session page with the files", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({
        agentCommand: `printf '# %s\\n' "$ORCH_SESSION_ID" > README.md && git -c user.email=a@b -c user.name=A commit -qam "$ORCH_SESSION_ID" && ` +
          `echo "committed $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`
      })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      for (const task of ["one", "two"]) assert.strictEqual((yield* s.orch(["spawn", "app", "--task", task])).code, 0)
      const api = dashboardClient(s)
      const page = yield* newPage()
      yield* on(page, (p) => p.goto(`${api.base}/?token=${api.token}`))
      yield* waitFor(page, "[data-session=app-1] .conflict[data-with=app-2][data-kind=conflict]", "app-1's conflict with app-2")
      yield* waitFor(page, "[data-session=app-2] .conflict[data-with=app-1][data-kind=conflict]", "app-2's conflict with app-1")
      assert.strictEqual(yield* text(page, "[data-session=app-2] .conflict"), "⚠ conflicts with app-1")
      assert.strictEqual(yield* on(page, (p) => p.locator("[data-session=app-2] .conflict").getAttribute("title")), "README.md")
      yield* screenshot(page, "board-conflicts")

      yield* on(page, (p) => p.goto(`${api.base}/sessions/app-2`))
      yield* waitFor(page, ".conflicts li[data-with=app-1][data-kind=conflict]", "the session page's conflict")
      const panel = yield* text(page, ".conflicts")
      assert.include(panel, "conflicts with app-1 (would not merge cleanly)")
      assert.include(panel, "README.md")
      // The pair's event is on both sessions' timelines.
      yield* waitForText(page, ".timeline", "session.conflict_predicted")
      yield* screenshot(page, "session-conflicts")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)
})
