/**
 * The ssh command lines of orch's one connection per host, and the shell text a round trip sends, as pure
 * functions. The user's own ~/.ssh/config and known_hosts apply (no -F, no UserKnownHostsFile of ours); orch adds
 * only what sharing one connection needs, and the host's `identityFile` and `sshOptions`.
 */
import { createHash, randomBytes } from "node:crypto"
import { join } from "node:path"
import { formatSshTarget, type RemoteHost } from "../config/host-spec.ts"

/** How long an idle master outlives its last use (so one left by an ended supervisor goes away on its own). */
export const CONTROL_PERSIST = "10m"
/** Keep-alives: a master whose host stopped answering for interval x count seconds exits (unless the user set them). */
export const SERVER_ALIVE_INTERVAL = 5
export const SERVER_ALIVE_COUNT_MAX = 3
export const CONNECT_TIMEOUT = 10

/**
 * Where a host's master listens: a short name (a hash of the host's name and target) so the path fits a socket.
 * Not ssh's %C: from OpenSSH 9.2's %l%h%p%r it grew %j (ProxyJump) later, which the round trips' ProxyCommand=false
 * would change, so they would look for the master on another path.
 */
export const controlPath = (controlDir: string, host: RemoteHost): string =>
  join(controlDir, createHash("sha256").update(`${host.name}\0${formatSshTarget(host.spec.ssh)}`).digest("hex").slice(0, 16))

/** Unix socket paths hold 108 bytes; ssh adds ".XXXXXXXXXXXXXXXX" to it while it binds. */
export const controlPathProblem = (path: string): string | undefined =>
  Buffer.byteLength(path) + 17 > 107
    ? `the socket path ${path} is too long for a Unix socket; set ORCH_HOME to a shorter directory`
    : undefined

export type SshMode =
  /** Connect through the master, or become it (and persist): the first contact and every reconnect. */
  | "establish"
  /** One round trip through the master; never opens a connection of its own (ProxyCommand=false). */
  | "run"
  /** `ssh -O check`: is a master listening? */
  | "check"
  /** A terminal through the master (`-tt`): a viewer's client of the host's tmux. Never opens a connection of its own. */
  | "interactive"

/** `command` is the remote command line of an "interactive" ssh (the others send `sh -s` a script on stdin). */
export const sshArgs = (host: RemoteHost, path: string, mode: SshMode, command = "sh -s"): Array<string> => {
  const spec = host.spec
  // For most options ssh keeps the first value it sees: orch's own come first, then the host's, then defaults the
  // user's sshOptions or ~/.ssh/config may override.
  const own = [
    "-o",
    "BatchMode=yes",
    "-o",
    `ControlPath=${path}`,
    ...(mode === "establish" ? ["-o", "ControlMaster=auto", "-o", `ControlPersist=${CONTROL_PERSIST}`] : ["-o", "ControlMaster=no"]),
    ...(mode === "run" || mode === "interactive" ? ["-o", "ProxyCommand=false"] : []),
    mode === "interactive" ? "-tt" : "-T"
  ]
  const users = Object.entries(spec.sshOptions ?? {}).flatMap(([key, value]) => ["-o", `${key}=${value}`])
  const defaults = [
    "-o",
    `ServerAliveInterval=${SERVER_ALIVE_INTERVAL}`,
    "-o",
    `ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`,
    "-o",
    `ConnectTimeout=${CONNECT_TIMEOUT}`
  ]
  const identity = spec.identityFile !== undefined ? ["-i", spec.identityFile] : []
  const destination = [
    ...(spec.ssh.user !== undefined ? ["-l", spec.ssh.user] : []),
    ...(spec.ssh.port !== undefined ? ["-p", String(spec.ssh.port)] : [])
  ]
  const control = mode === "check" ? ["-O", "check"] : []
  return [...own, ...users, ...defaults, ...identity, ...destination, ...control, "--", spec.ssh.hostname, ...(mode === "check" ? [] : [command])]
}

/**
 * The text sent to `sh -s`: the script as one compound command, so the shell reads all of it before running any of
 * it (a command reading stdin cannot eat the rest of the script), with stdin `input` as a here-document (given a
 * final newline) or /dev/null. Nothing of the script or its input is on a command line.
 */
export const scriptText = (script: string, input?: string, delimiter = `ORCH_INPUT_${randomBytes(8).toString("hex")}`): string => {
  const body = `{\n${script.replace(/\n?$/, "\n")}}`
  if (input === undefined) return `${body} </dev/null\n`
  return `${body} <<'${delimiter}'\n${input.replace(/\n?$/, "\n")}${delimiter}\n`
}
