/**
 * A host's headroom: free memory (MemAvailable, or less when orch runs there in a control group with a memory
 * limit: src/domain/memory-budget.ts), load (1-minute load average and CPU count), free disk where its data dir is
 * (or would be), and whether tmux is there. One script, one round trip; its answer is read by a pure
 * function, so placement decides on figures, not on a guess.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { groupAvailableBytes, groupLimitBytes, GROUPS_SCRIPT, parseGroupLine } from "../domain/memory-budget.ts"
import { shellQuote } from "../process/shell-quote.ts"
import type { HostConnectionsShape } from "./HostConnections.ts"

export interface HostFacts {
  readonly memAvailableMb: number
  readonly memTotalMb: number
  readonly load1: number
  readonly cpus: number
  /** Free space of the file system holding the data dir (its nearest existing directory). */
  readonly disk: { readonly path: string; readonly freeMb: number }
  /** tmux's version ("3.3a"), or undefined where tmux is not installed. */
  readonly tmux: string | undefined
  /**
   * orch's data dir there as an absolute path (its nearest existing directory resolved, the rest as configured), so
   * a spawn placed there knows its paths without asking again.
   */
  readonly dataDir?: string
}

export class HeadroomUnreadable extends Schema.TaggedError<HeadroomUnreadable>()("HeadroomUnreadable", {
  host: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `orch could not read host ${this.host}'s free memory, load and disk: ${this.reason}`
  }
}

/** A data dir as a shell word: `~/x` becomes "$HOME"/'x', anything else is quoted as it is. */
export const dataDirWord = (dataDir: string): string =>
  dataDir === "~" ? `"$HOME"` : dataDir.startsWith("~/") ? `"$HOME"/${shellQuote(dataDir.slice(2))}` : shellQuote(dataDir)

/** The script: sections marked "@name", ended by "@end" so a cut-off answer is told from a short one. */
export const headroomScript = (dataDir = "~/.orchestrator"): string =>
  `d=${dataDirWord(dataDir)}; rest=""
while [ ! -d "$d" ]; do rest="/$(basename "$d")$rest"; d=$(dirname "$d"); done
echo "@data $(cd "$d" && pwd -P | sed 's:^/$::')$rest"
echo @meminfo; cat /proc/meminfo
echo @loadavg; cat /proc/loadavg
echo @cpus; getconf _NPROCESSORS_ONLN 2>/dev/null || nproc
echo "@disk $d"; df -Pk "$d"
echo @tmux; if command -v tmux >/dev/null 2>&1; then tmux -V 2>&1; else echo absent; fi
echo @groups
${GROUPS_SCRIPT}
echo @end
`

const sections = (text: string): Map<string, { readonly arg: string; readonly lines: Array<string> }> => {
  const found = new Map<string, { arg: string; lines: Array<string> }>()
  let current: Array<string> | undefined
  for (const line of text.split("\n")) {
    const marker = /^@(\w+)(?: (.*))?$/.exec(line)
    if (marker) {
      current = []
      found.set(marker[1]!, { arg: marker[2] ?? "", lines: current })
    } else if (current !== undefined && line !== "") current.push(line)
  }
  return found
}

const kb = (meminfo: ReadonlyArray<string>, key: string): number | undefined => {
  const line = meminfo.find((candidate) => candidate.startsWith(`${key}:`))
  const value = line !== undefined ? /^\S+:\s+(\d+)\s*kB$/.exec(line)?.[1] : undefined
  return value !== undefined ? Number(value) : undefined
}

/** The facts in the script's answer, or why they cannot be read. */
export const parseHeadroom = (text: string): HostFacts | string => {
  const parts = sections(text)
  if (!parts.has("end")) return "its answer was cut short"
  const meminfo = parts.get("meminfo")?.lines ?? []
  const available = kb(meminfo, "MemAvailable")
  const total = kb(meminfo, "MemTotal")
  if (available === undefined || total === undefined) return "no MemAvailable in /proc/meminfo (orch needs Linux 3.14 or later on its hosts)"
  const load = parts.get("loadavg")?.lines[0]?.split(/\s+/)[0]
  const load1 = load !== undefined ? Number(load) : Number.NaN
  if (!Number.isFinite(load1)) return "no load average in /proc/loadavg"
  const cpus = Number(parts.get("cpus")?.lines[0])
  if (!Number.isInteger(cpus) || cpus < 1) return "no CPU count (getconf _NPROCESSORS_ONLN)"
  const disk = parts.get("disk")
  // df -Pk: a header, then "Filesystem 1024-blocks Used Available Capacity Mounted-on" on one line; the file
  // system's name and the mount point may hold spaces, so Available is found as the field before "NN%".
  const fields = disk?.lines.at(-1)?.trim().split(/\s+/) ?? []
  const capacity = fields.findIndex((field, index) => index >= 4 && /^\d+%$/.test(field))
  const free = capacity > 0 ? fields[capacity - 1] : undefined
  if (disk === undefined || disk.lines.length < 2 || free === undefined || !/^\d+$/.test(free)) return "no free space from df -Pk"
  const tmuxLine = parts.get("tmux")?.lines[0] ?? "absent"
  const tmux = /^tmux (\S+)/.exec(tmuxLine)?.[1]
  const groups = (parts.get("groups")?.lines ?? []).flatMap((line) => parseGroupLine(line) ?? [])
  const data = parts.get("data")?.arg
  const groupAvailable = groupAvailableBytes(groups)
  const groupLimit = groupLimitBytes(groups)
  return {
    memAvailableMb: Math.floor(Math.min(available * 1024, groupAvailable ?? Infinity) / 1024 ** 2),
    memTotalMb: Math.floor(Math.min(total * 1024, groupLimit ?? Infinity) / 1024 ** 2),
    load1,
    cpus,
    disk: { path: disk.arg, freeMb: Math.floor(Number(free) / 1024) },
    tmux,
    ...(data !== undefined && data.startsWith("/") ? { dataDir: data } : {})
  }
}

/** Runs the script on `host` and reads its answer: one round trip. */
export const measureHeadroom = Effect.fn("Headroom.measure")(function*(connections: HostConnectionsShape, host: string, dataDir?: string) {
  const result = yield* connections.run(host, headroomScript(dataDir))
  const facts = result.exitCode === 0 ? parseHeadroom(result.stdout) : `its script exited ${result.exitCode}: ${result.stderr.trim().split("\n").at(-1) ?? ""}`
  if (typeof facts === "string") return yield* new HeadroomUnreadable({ host, reason: facts })
  return facts
})
