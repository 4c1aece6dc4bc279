/**
 * `supervisor.json`: which supervisor runs (pid, socket, dashboard), so every CLI process can find it. It only
 * says who claimed to run: whether that supervisor still does is asked on its socket (src/ipc/liveness.ts).
 */
import * as Schema from "effect/Schema"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomic } from "./files.ts"
import { storePaths } from "./paths.ts"
import { isProcessAlive, parseOwner } from "./process-liveness.ts"

export const SupervisorFile = Schema.Struct({
  pid: Schema.Int,
  /** Its process's start time as the system tells it (`/proc`): a pid given to another process since is not it. */
  pidStart: Schema.optionalKey(Schema.String),
  socket: Schema.String,
  startedAt: Schema.String,
  version: Schema.String,
  dashboardUrl: Schema.String,
  /** The config file it serves, for the commands that speak to it without asking (src/ipc/fast-path.ts). */
  configPath: Schema.optionalKey(Schema.String)
})
export type SupervisorFile = typeof SupervisorFile.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(SupervisorFile))

export const supervisorFilePath = (root: string) => join(root, "supervisor.json")
export const socketPath = (root: string) => join(root, "orch.sock")

/** What `supervisor.json` says, if it exists and reads as one. */
export const readSupervisorFile = (root: string): SupervisorFile | undefined => {
  let text: string
  try {
    text = readFileSync(supervisorFilePath(root), "utf8")
  } catch {
    return undefined
  }
  const file = decode(text)
  return file._tag === "Some" ? file.value : undefined
}

export const writeSupervisorFile = (root: string, file: SupervisorFile) => writeFileAtomic(supervisorFilePath(root), `${JSON.stringify(file, null, 2)}\n`)

/**
 * What `supervisor.json` says, when the process it names still runs (the same one: its start time) and is not
 * starting. Asked once the socket refused a connection, that is a supervisor on its way out: its socket closed, its
 * starts being put back. A supervisor starting has written the file before it binds its socket (it binds last), all
 * under the supervisor lock, which one stopping no longer holds.
 */
export const stoppingSupervisor = (root: string): SupervisorFile | undefined => {
  const file = readSupervisorFile(root)
  if (file === undefined || !isProcessAlive(file.pid, file.pidStart)) return undefined
  let owner: string
  try {
    owner = readFileSync(join(storePaths(root).locks, "supervisor.lock", "owner"), "utf8")
  } catch {
    return file
  }
  return parseOwner(owner)?.pid === file.pid ? undefined : file
}

/** Removes the file, but only if it is still this process's. */
export const removeSupervisorFile = (root: string, pid: number) => {
  if (readSupervisorFile(root)?.pid === pid) rmSync(supervisorFilePath(root), { force: true })
}
