/**
 * The library as a user calls it: the packed tarball installed into a package of its own, imported by plain
 * JavaScript run with `node`, and its declarations compiled by `tsc` under each module resolution a user may pick.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { dirname, join } from "node:path"
import { type InstalledPackage, installPacked } from "../support/packed.ts"

let pkg: InstalledPackage
let server: Server
let endpoint: string
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: unknown }> = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = ""
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text) })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  pkg = await installPacked()
}, 240_000)

afterAll(() => {
  server?.close()
  pkg?.remove()
})

const projectYaml = (repo: string) => `projects:\n  app:\n    repo: ${repo}\n    path: /src/app\n`
const writeIn = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  return path
}

describe("orch, installed from its tarball", () => {
  it("config functions are Promises that read the working directory at each call; failures are Errors with a _tag", async () => {
    const [one, two, empty, home] = ["one", "two", "empty", "home"].map((name) => join(pkg.dir, "dirs", name)) as [string, string, string, string]
    const inOne = writeIn(join(one, "orchestrator.yaml"), projectYaml("acme/one"))
    const inTwo = writeIn(join(two, "orchestrator.yml"), projectYaml("acme/two"))
    for (const dir of [empty, home]) mkdirSync(dir, { recursive: true })
    pkg.write(
      "config.mjs",
      `
      import { ConfigNotFoundError, ConfigValidationError, DuplicateProjectIdError, findConfig, findConfigFile,
        getDefaultConfig, loadConfig, loadConfigWithPath, validateConfig } from "orch"
      const [one, two, empty] = process.argv.slice(2)
      const failure = (error, type) =>
        ({ error: error instanceof Error, instance: error instanceof type, tag: error._tag, first: error.message.split("\\n")[0] })
      const out = {}
      process.chdir(one)
      out.one = [(await loadConfig()).projects.app.repo, await findConfigFile(), (await loadConfigWithPath()).path]
      process.chdir(two)
      out.two = [(await loadConfig()).projects.app.repo, await findConfig()]
      process.chdir(empty)
      out.none = await findConfig()
      out.notFound = await loadConfig().catch((e) => failure(e, ConfigNotFoundError))
      out.invalid = await validateConfig({ projects: { app: { path: "/src/app" } } })
        .catch((e) => ({ ...failure(e, ConfigValidationError), issues: e.issues }))
      out.duplicate = await validateConfig({ projects: { a: { repo: "acme/a", path: "/x/app" }, b: { repo: "acme/b", path: "/y/app", sessionPrefix: "b" } } })
        .catch((e) => failure(e, DuplicateProjectIdError))
      const defaults = await getDefaultConfig()
      out.defaults = [defaults.port, defaults.defaults.runtime, Object.keys(defaults.projects).length]
      console.log(JSON.stringify(out))
    `
    )
    const { stdout } = await pkg.node("config.mjs", [one, two, empty], { env: { HOME: home } })
    const out = JSON.parse(stdout)
    assert.deepStrictEqual(out.one, ["acme/one", inOne, inOne])
    assert.deepStrictEqual(out.two, ["acme/two", inTwo])
    assert.strictEqual(out.none, null)
    assert.deepStrictEqual({ ...out.notFound, first: undefined }, { error: true, instance: true, tag: "ConfigNotFoundError", first: undefined })
    assert.match(
      out.notFound.first,
      /^No config file found: no orchestrator\.yaml \(or \.yml\) in \S*empty or any directory above it, nor \S*home\/\.orchestrator\.yaml or /
    )
    assert.deepStrictEqual(out.invalid, {
      error: true,
      instance: true,
      tag: "ConfigValidationError",
      first: "Validation error at \"projects.app.repo\": Required",
      issues: [{ path: "projects.app.repo", message: "Required" }]
    })
    assert.deepStrictEqual(out.duplicate, {
      error: true,
      instance: true,
      tag: "DuplicateProjectIdError",
      first: "Duplicate project ID detected: \"app\". Projects \"a\" (/x/app) and \"b\" (/y/app) have paths with the same directory name, " +
        "and a project's id is its directory name. Rename one directory."
    })
    assert.deepStrictEqual(out.defaults, [3000, "multiplexer", 0])
  })

  it("the README's library example runs as written", async () => {
    const readme = readFileSync("README.md", "utf8")
    const section = readme.slice(readme.indexOf("## As a library"))
    const example = /```js\n([\s\S]*?)```/.exec(section)?.[1]
    assert.isDefined(example, "README.md's \"As a library\" section has a ```js example")
    const dir = join(pkg.dir, "readme")
    writeIn(join(dir, "orchestrator.yaml"), projectYaml("acme/app"))
    const script = writeIn(join(dir, "example.mjs"), example!)
    const home = join(pkg.dir, "readme-home")
    mkdirSync(home, { recursive: true })
    const found = await pkg.node(script, [], { cwd: dir, env: { HOME: home } })
    assert.strictEqual(found.stdout, "app acme/app on main, sessions app-1, app-2, …\n")
    const nowhere = join(pkg.dir, "readme-empty")
    mkdirSync(nowhere, { recursive: true })
    const missing = await pkg.node(script, [], { cwd: nowhere, env: { HOME: home } })
    assert.deepStrictEqual([missing.stdout, missing.stderr], ["", "No orchestrator.yaml yet: run `orch init`.\n"])
  })

  it("orch/plugins/notifier/webhook: create checks the URL; notify, notifyWithActions and post deliver the documented bodies", async () => {
    received.length = 0
    pkg.write(
      "webhook.mjs",
      `
      import { create, manifest } from "orch/plugins/notifier/webhook"
      const [url] = process.argv.slice(2)
      const out = { manifest }
      try {
        create({ url: "not a url" })
        out.badUrl = "created"
      } catch (error) {
        out.badUrl = { error: error instanceof Error, tag: error._tag, message: error.message }
      }
      const notifier = create({ url: url + "/hooks/orch", headers: { authorization: "Bearer s3cret", "x-count": 3 }, retries: 0 })
      out.component = [notifier.name, typeof notifier.notify, typeof notifier.notifyWithActions, typeof notifier.post]
      const stuck = { id: "n-1", type: "session.stuck", priority: "urgent", title: "app-1 is stuck", message: "No output for 10 minutes",
        timestamp: "2026-01-02T03:04:05.000Z", sessionId: "app-1", projectId: "app", data: { minutes: 10 } }
      await notifier.notify(stuck)
      await notifier.notifyWithActions(stuck, [{ label: "Open PR", url: "https://github.com/acme/app/pull/7" }, { label: "Merge", callbackEndpoint: "/api/sessions/app-1/merge" }])
      await notifier.post("Batch finished", { sessionId: "app-1", channel: "#ops" })
      await notifier.notify({ title: "Hi", message: "Just this" })
      out.invalid = await notifier.notify({ title: "No message" }).catch((error) => ({ tag: error._tag, message: error.message }))
      console.log(JSON.stringify(out))
    `
    )
    const { stdout } = await pkg.node("webhook.mjs", [endpoint])
    const out = JSON.parse(stdout)
    assert.deepStrictEqual(out.manifest, {
      name: "webhook",
      slot: "notifier",
      description: "POSTs JSON to any HTTP(S) endpoint, with headers and retries",
      version: JSON.parse(readFileSync("package.json", "utf8")).version
    })
    assert.deepStrictEqual(out.badUrl, { error: true, tag: "NotifierConfigError", message: "notifier webhook: `url` is not a valid URL: \"not a url\"" })
    assert.deepStrictEqual(out.component, ["webhook", "function", "function", "function"])
    assert.deepStrictEqual(out.invalid, { tag: "NotifierError", message: "notifier webhook: the notification is not valid: message: Missing key" })

    assert.deepStrictEqual(received.map((r) => [r.path, r.headers["content-type"], r.headers.authorization, r.headers["x-count"]]), [
      ["/hooks/orch", "application/json", "Bearer s3cret", undefined],
      ["/hooks/orch", "application/json", "Bearer s3cret", undefined],
      ["/hooks/orch", "application/json", "Bearer s3cret", undefined],
      ["/hooks/orch", "application/json", "Bearer s3cret", undefined]
    ])
    const event = {
      id: "n-1",
      type: "session.stuck",
      priority: "urgent",
      sessionId: "app-1",
      projectId: "app",
      timestamp: "2026-01-02T03:04:05.000Z",
      message: "No output for 10 minutes",
      data: { minutes: 10 }
    }
    const [notify, withActions, post, minimal] = received.map((r) => r.body) as [unknown, unknown, unknown, { event: Record<string, unknown> }]
    assert.deepStrictEqual(notify, { type: "notification", event })
    assert.deepStrictEqual(withActions, {
      type: "notification_with_actions",
      event,
      actions: [{ label: "Open PR", url: "https://github.com/acme/app/pull/7" }, { label: "Merge", callbackEndpoint: "/api/sessions/app-1/merge" }]
    })
    assert.deepStrictEqual(post, { type: "message", message: "Batch finished", context: { sessionId: "app-1", channel: "#ops" } })
    assert.deepStrictEqual(Object.keys(minimal.event), ["id", "type", "priority", "timestamp", "message"])
    assert.include(minimal.event, { type: "notification", priority: "info", message: "Just this" })
    assert.match(String(minimal.event.id), /^[0-9a-f-]{36}$/)
    assert.isFalse(Number.isNaN(Date.parse(String(minimal.event.timestamp))))
  })

  it("the installed `orch` command runs, and takes a built-in notifier module by its package name", async () => {
    received.length = 0
    const dir = join(pkg.dir, "cli")
    const home = join(pkg.dir, "cli-home")
    mkdirSync(home, { recursive: true })
    writeIn(
      join(dir, "orchestrator.yaml"),
      [
        "notifiers:",
        "  alerts:",
        "    plugin: webhook",
        "    package: orch/plugins/notifier/webhook",
        `    url: ${endpoint}/via-cli`,
        "    retries: 0",
        projectYaml("acme/app")
      ].join("\n")
    )
    const version = await pkg.bin("orch", ["--version"], { cwd: dir, env: { HOME: home } })
    assert.strictEqual(version.stdout, `orch v${JSON.parse(readFileSync("package.json", "utf8")).version}\n`)
    await pkg.bin("orch", ["notify", "--notifier", "alerts", "through", "the", "module"], { cwd: dir, env: { HOME: home } })
    assert.deepStrictEqual(received.map((r) => [r.path, (r.body as { type: string }).type, (r.body as { event: { message: string } }).event.message]), [
      ["/via-cli", "notification", "through the module"]
    ])
  })

  it("tsc finds the declarations of orch, orch/effect, orch/plugins and orch/plugins/<slot>/<name> under node16, nodenext and bundler", async () => {
    pkg.write("plugin.ts", readFileSync("test/fixtures/library/plugin.ts", "utf8"))
    // One of them also checks every declaration file (orch's and effect's); the others only how they resolve.
    const options = {
      node16: { module: "node16", moduleResolution: "node16", skipLibCheck: true },
      nodenext: { module: "nodenext", moduleResolution: "nodenext", skipLibCheck: false },
      bundler: { module: "preserve", moduleResolution: "bundler", skipLibCheck: true }
    }
    const results = await Promise.all(
      Object.entries(options).map(async ([name, resolution]) => {
        pkg.write(
          `tsconfig.${name}.json`,
          JSON.stringify({
            compilerOptions: { ...resolution, target: "es2022", strict: true, noEmit: true, types: [] },
            files: ["plugin.ts"]
          })
        )
        return [name, await pkg.tsc(`tsconfig.${name}.json`)] as const
      })
    )
    for (const [name, result] of results) assert.deepStrictEqual({ name, ...result }, { name, code: 0, output: "" })
  })
})
