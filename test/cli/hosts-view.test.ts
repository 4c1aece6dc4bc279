import { describe, expect, it } from "@effect/vitest"
import { hostCells, type HostRow } from "../../src/cli/hosts-view.ts"

const headroom = { memAvailableMb: 3072, memTotalMb: 8192, load1: 0.5, cpus: 4, disk: { path: "/home/me", freeMb: 20480 }, tmux: "3.3a" }
const row = (fields: Partial<HostRow>): HostRow => ({ host: "b", status: "up", sessions: ["app-1"], labels: [], ...fields })

describe("orch hosts' table cells", () => {
  it("a host that answers: its figures", () => {
    expect(hostCells(row({ view: { status: "up", since: 0, headroom, readAt: 0 }, maxSessions: 4, labels: ["gpu"] }))).toEqual([
      "b",
      "up",
      "3.0 GB of 8.0 GB",
      "0.5 on 4 CPUs",
      "20.0 GB",
      "1/4",
      "gpu",
      ""
    ])
  })

  it("a host that is down: since when and why, and no figures (the last ones no longer hold)", () => {
    const since = Date.parse("2026-11-26T14:05:00.000Z")
    expect(hostCells(row({ status: "down", since, view: { status: "down", since, headroom, readAt: 0 }, lastError: "connection refused" }))).toEqual([
      "b",
      "down since 14:05 UTC",
      "-",
      "-",
      "-",
      "1",
      "-",
      "connection refused"
    ])
  })
})
