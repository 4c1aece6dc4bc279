/** `supervisor.json`: which supervisor runs (pid, socket, dashboard), so every CLI process can find it. */
import * as Schema from "effect/Schema"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomic } from "./files.ts"
import { isProcessAlive } from "./lock.ts"

export const SupervisorFile = Schema.Struct({
  pid: Schema.Int,
  socket: Schema.String,
  startedAt: Schema.String,
  version: Schema.String,
  dashboardUrl: Schema.String
})
export type SupervisorFile = typeof SupervisorFile.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(SupervisorFile))

export const supervisorFilePath = (root: string) => join(root, "supervisor.json")
export const socketPath = (root: string) => join(root, "orch.sock")

/** The running supervisor, if its file names a live process whose socket exists. */
export const runningSupervisor = (root: string): SupervisorFile | undefined => {
  let text: string
  try {
    text = readFileSync(supervisorFilePath(root), "utf8")
  } catch {
    return undefined
  }
  const file = decode(text)
  if (file._tag === "None" || !isProcessAlive(file.value.pid) || !existsSync(file.value.socket)) return undefined
  return file.value
}

export const writeSupervisorFile = (root: string, file: SupervisorFile) =>
  writeFileAtomic(supervisorFilePath(root), `${JSON.stringify(file, null, 2)}\n`)

/** Removes the file, but only if it is still this process's. */
export const removeSupervisorFile = (root: string, pid: number) => {
  try {
    const current = decode(readFileSync(supervisorFilePath(root), "utf8"))
    if (current._tag === "Some" && current.value.pid === pid) rmSync(supervisorFilePath(root), { force: true })
  } catch {
    // already gone
  }
}
