/**
 * A second machine for the host-down scenario: a real sshd host `b` (test/support/ssh-hosts.ts: a Unix user of its
 * own with its own sshd, so it needs root) that gets the code from the run's origin and runs the run's agent
 * script. `down()` kills its sshd and every process of its user, as a machine that dies.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { execFileSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { makeSshHosts, sshHostsUnavailable } from "../support/ssh-hosts.ts"

/** Why the host-down scenario cannot run here, or undefined when it can. */
export const remoteHostUnavailable: string | undefined = sshHostsUnavailable

export interface RemoteHost {
  readonly name: string
  /** Its entry under `hosts:` in orchestrator.yaml. */
  readonly config: Record<string, unknown>
  readonly down: () => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * Starts host `b`. Its user reaches what it needs of the run: `root` (the run's directory) and `origin` become
 * readable, origin writable (rescue refs are pushed there), and `shared` (files its agents append to) writable.
 */
export const startRemoteHost = async (root: string, origin: string, shared: ReadonlyArray<string>): Promise<RemoteHost> => {
  chmodSync(root, 0o755)
  execFileSync("chmod", ["-R", "a+rwX", origin])
  for (const file of shared) writeFileSync(file, "", { mode: 0o666, flag: "a" })
  for (const file of shared) chmodSync(file, 0o666)
  const scope = Scope.makeUnsafe()
  const pool = await Effect.runPromise(makeSshHosts(["b"]).pipe(Scope.provide(scope)))
  const b = pool.hosts[0]!
  // The origin belongs to another user: b trusts it, as a host's git config would.
  b.shell("git config --global safe.directory '*'")
  return {
    name: b.name,
    config: {
      ssh: `${b.spec.ssh.user}@${b.spec.ssh.hostname}:${b.spec.ssh.port}`,
      identityFile: b.spec.identityFile,
      sshOptions: { UserKnownHostsFile: b.spec.sshOptions!.UserKnownHostsFile, IdentitiesOnly: "yes" }
    },
    down: () => Effect.runPromise(b.kill),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
