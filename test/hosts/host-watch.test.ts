/** The view of a host and when it is news (src/hosts/host-watch.ts): a table over explicit time. */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type HostObservation, type HostView, hostViewsOf, readHostsFile, watchHost } from "../../src/hosts/host-watch.ts"

const facts = { memAvailableMb: 4000, memTotalMb: 8000, load1: 0.5, cpus: 4, disk: { path: "/h", freeMb: 9000 }, tmux: "3.3a" }
const up: HostView = { status: "up", since: 1_000, headroom: facts, readAt: 1_000 }
const down: HostView = { status: "down", since: 10_000, lastError: "host b did not answer within 10 s", headroom: facts, readAt: 1_000 }
const read: HostObservation = { _tag: "Read", facts: { ...facts, memAvailableMb: 3000 } }
const failed: HostObservation = { _tag: "Failed", error: "host b did not answer within 10 s" }
const answered: HostObservation = { _tag: "Answered" }

describe("watchHost", () => {
  const rows: ReadonlyArray<[string, HostView | undefined, HostObservation, number, HostView, string | undefined]> = [
    [
      "first reading: up, no news",
      undefined,
      read,
      5_000,
      { status: "up", since: 5_000, headroom: read._tag === "Read" ? read.facts : facts, readAt: 5_000 },
      undefined
    ],
    ["down from the start: news", undefined, failed, 5_000, { status: "down", since: 5_000, lastError: "host b did not answer within 10 s" }, "host.down"],
    ["a reconnect at first contact is no news", undefined, answered, 5_000, { status: "up", since: 5_000 }, undefined],
    ["up stays up: new figures, same since", up, read, 61_000, { ...up, headroom: { ...facts, memAvailableMb: 3000 }, readAt: 61_000 }, undefined],
    [
      "up, then a failure: down once",
      up,
      failed,
      61_000,
      { ...up, status: "down", since: 61_000, lastError: "host b did not answer within 10 s" },
      "host.down"
    ],
    ["down, failing again: no news, the newest error", down, { _tag: "Failed", error: "connection refused" }, 70_000, {
      ...down,
      lastError: "connection refused"
    }, undefined],
    ["down, answering again: up, news", down, answered, 130_000, { ...down, status: "up", since: 130_000 }, "host.up"],
    ["down, read again: up with the figures", down, read, 130_000, {
      ...down,
      status: "up",
      since: 130_000,
      headroom: { ...facts, memAvailableMb: 3000 },
      readAt: 130_000
    }, "host.up"]
  ]
  for (const [name, previous, observation, now, next, news] of rows) {
    it(name, () => {
      const step = watchHost("b", previous, observation, now)
      assert.deepStrictEqual(step.next, next)
      assert.strictEqual(step.news?.type, news)
    })
  }

  it("says what happened in a sentence, with how long it was down", () => {
    assert.strictEqual(
      watchHost("b", up, failed, 61_000).news?.message,
      "host b did not answer within 10 s; host b's sessions read unknown until it can be reached again"
    )
    assert.strictEqual(
      watchHost("b", undefined, failed, 5_000).news?.message,
      "host b did not answer within 10 s; no session can run on host b until it can be reached"
    )
    const back = watchHost("b", down, answered, 10_000 + 125_000).news
    assert.deepInclude(back, { type: "host.up", downForMs: 125_000, message: "host b answers again after 2 min down; its sessions are watched as before" })
    assert.strictEqual(
      watchHost("b", down, answered, 10_000 + 20_000).news?.message,
      "host b answers again after 20 s down; its sessions are watched as before"
    )
  })
})

describe("hosts.json", () => {
  it("only the running supervisor's file counts: one an earlier supervisor left says nothing", () => {
    const path = join(mkdtempSync(join(tmpdir(), "orch-hosts-file-")), "hosts.json")
    assert.isUndefined(readHostsFile(path, 42), "no file")
    writeFileSync(path, JSON.stringify({ writtenAt: 1, pid: 41, hosts: { b: up } }))
    assert.isUndefined(readHostsFile(path, 42))
    assert.deepStrictEqual([...hostViewsOf(path, 42)], [])
    writeFileSync(path, JSON.stringify({ writtenAt: 1, pid: 42, hosts: { b: up } }))
    assert.deepStrictEqual([...hostViewsOf(path, 42)], [["b", up]])
    writeFileSync(path, "{ not json")
    assert.isTrue(readHostsFile(path, 42)?._tag === "Failure", "a file that does not decode is said to be unreadable")
  })
})
