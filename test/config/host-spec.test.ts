import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { formatSshTarget, HostSpec, parseSshTarget } from "../../src/config/host-spec.ts"

describe("parseSshTarget (user@host[:port])", () => {
  const table: ReadonlyArray<readonly [string, unknown]> = [
    ["orch@127.0.0.3:2222", { user: "orch", hostname: "127.0.0.3", port: 2222 }],
    ["orch@build-1.example.internal", { user: "orch", hostname: "build-1.example.internal" }],
    ["box", { hostname: "box" }],
    ["me@[::1]:22", { user: "me", hostname: "::1", port: 22 }],
    ["[fe80::1]", { hostname: "fe80::1" }],
    ["orch@box:0", `"orch@box:0" has a port that is not 1-65535`],
    ["orch@box:ssh", `"orch@box:ssh" has a port that is not 1-65535`],
    ["@box", `"@box" has an empty or odd user name before "@"`],
    ["orch@", `"orch@" names no host (expected [user@]host[:port])`],
    ["orch@-oProxyCommand=x", `"orch@-oProxyCommand=x" names no host (expected [user@]host[:port])`],
    ["orch@a b", `"orch@a b" names no host (expected [user@]host[:port])`]
  ]
  for (const [text, expected] of table) {
    it(text, () => {
      const parsed = parseSshTarget(text)
      assert.deepStrictEqual(parsed, expected)
      if (typeof parsed !== "string") assert.strictEqual(formatSshTarget(parsed), text)
    })
  }
})

describe("HostSpec (a hosts: entry)", () => {
  const decode = (input: unknown) => {
    try {
      return Schema.decodeUnknownSync(HostSpec)(input, { errors: "all", onExcessProperty: "error" })
    } catch (error) {
      return SchemaIssue.makeFormatterStandardSchemaV1()((error as Schema.SchemaError).issue).issues.map((issue) => issue.message)
    }
  }
  it("decodes a full entry", () =>
    assert.deepStrictEqual(
      decode({
        ssh: "orch@10.0.0.2:2222",
        identityFile: "~/.ssh/orch",
        sshOptions: { ServerAliveInterval: "15" },
        dataDir: "/srv/orch",
        maxSessions: 8,
        labels: ["gpu"]
      }),
      {
        ssh: { user: "orch", hostname: "10.0.0.2", port: 2222 },
        identityFile: "~/.ssh/orch",
        sshOptions: { ServerAliveInterval: "15" },
        dataDir: "/srv/orch",
        maxSessions: 8,
        labels: ["gpu"]
      }
    ))
  it("refuses options orch sets for its shared connection, with the reason", () =>
    assert.deepStrictEqual(decode({ ssh: "box", sshOptions: { controlpath: "/tmp/x" } }), [
      "controlpath is set by orch for its shared connection; remove it (orch uses BatchMode, ControlMaster, ControlPath, ControlPersist, RemoteCommand, RequestTTY itself)"
    ]))
  it("refuses a port, user or host name in sshOptions: the ssh: target says them", () =>
    assert.deepStrictEqual(decode({ ssh: "me@box:2223", sshOptions: { Port: "2224" } }), [
      "Port belongs in ssh: ([user@]host[:port]), where orch reads it for its messages; remove it from sshOptions"
    ]))
  it("refuses a bad target and a negative maxSessions", () =>
    assert.deepStrictEqual(decode({ ssh: "a@b:99999", maxSessions: -1 }), [
      `"a@b:99999" has a port that is not 1-65535`,
      "Expected a value greater than or equal to 0"
    ]))
})
