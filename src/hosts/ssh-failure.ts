/**
 * What went wrong with an ssh connection, read from ssh's own words (its stderr) by a pure function, so each
 * failure reaches the user as one sentence with what to do. ssh's exit status (255) says only that it failed.
 */
export type SshProblem =
  | "host-key-changed"
  | "host-key-unknown"
  | "key-refused"
  | "connection-refused"
  | "timed-out"
  | "unreachable"
  | "connection-lost"
  | "other"

export interface SshFailure {
  readonly problem: SshProblem
  /** The line of ssh's output that says it (without ssh's "WARNING" banners), for the message. */
  readonly detail: string
}

const RULES: ReadonlyArray<readonly [SshProblem, RegExp]> = [
  ["host-key-changed", /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i],
  ["host-key-unknown", /No [A-Z0-9-]+ host key is known for|Host key verification failed/i],
  ["key-refused", /Permission denied \(|Too many authentication failures|no mutual signature|Load key .*: (?:invalid format|bad permissions)/i],
  ["connection-refused", /Connection refused/i],
  ["timed-out", /Connection timed out|Operation timed out|timed out during banner exchange/i],
  ["unreachable", /No route to host|Network is unreachable|Could not resolve hostname|Name or service not known|Temporary failure in name resolution/i],
  [
    "connection-lost",
    /Connection closed|Connection reset|Broken pipe|kex_exchange_identification|Timeout, server .* not responding|Control socket connect|mux_client|master .* (?:closed|is not running)/i
  ]
]

/** ssh's lines that are not decoration (the @@@ banners, blank lines, "Warning: Permanently added"). */
const meaningful = (stderr: string): Array<string> =>
  stderr.split("\n").map((line) => line.trim()).filter((line) =>
    line !== "" && !/^@+$/.test(line) && !/^@\s/.test(line) && !/^Warning: Permanently added/i.test(line)
  )

export const classifySshFailure = (stderr: string): SshFailure => {
  const lines = meaningful(stderr)
  for (const [problem, pattern] of RULES) {
    const line = lines.find((candidate) => pattern.test(candidate))
    if (line === undefined) continue
    if (problem === "key-refused") {
      // ssh warns, then goes on without it, when the identityFile is missing: that is the reason, not the refusal.
      const missing = lines.find((candidate) => /Identity file .* not accessible/i.test(candidate))
      return { problem, detail: missing ?? line }
    }
    if (problem === "host-key-changed") {
      // "Offending ED25519 key in /path/known_hosts:3" says which entry to look at.
      const offending = lines.find((candidate) => /^Offending .* key in /.test(candidate))
      return { problem, detail: offending ?? line }
    }
    return { problem, detail: line }
  }
  return { problem: "other", detail: lines.at(-1) ?? "ssh failed and said nothing" }
}

/** The sentence after "host b (user@addr:port)": what happened and what to do. */
export const describeSshFailure = (failure: SshFailure): string => {
  switch (failure.problem) {
    case "host-key-changed":
      return `presented a host key that differs from the one in known_hosts (${failure.detail}); orch never accepts a changed key: if the host was reinstalled, verify its new key and replace the old entry (ssh-keygen -R)`
    case "host-key-unknown":
      return `has a host key that is not in known_hosts, and orch does not accept keys on its own; connect once with ssh to check and accept it (ssh reads the known_hosts of your login's home directory, not of $HOME, unless the host's sshOptions set UserKnownHostsFile)`
    case "key-refused":
      return /Identity file .* not accessible/i.test(failure.detail)
        ? `was offered no key: ${failure.detail.replace(/^Warning: /, "").replace(/\.$/, "")}; fix the host's identityFile`
        : `refused the key (${failure.detail}); check the host's identityFile and that its public key is in ~/.ssh/authorized_keys there`
    case "connection-refused":
      return `refused the connection (${failure.detail}); check that sshd runs there and the port is right`
    case "timed-out":
      return `did not answer (${failure.detail}); check that it is up and reachable`
    case "unreachable":
      return `cannot be reached (${failure.detail}); check its address and the network`
    case "connection-lost":
      return `dropped the connection (${failure.detail}); orch reconnects`
    case "other":
      return `could not be reached over ssh: ${failure.detail}`
  }
}
