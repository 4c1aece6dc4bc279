/**
 * Real SSH hosts on this machine, for tests: each host is its own Unix user (made for the run, with an empty home,
 * removed after) with its own `sshd` (host key generated for the run, its own loopback address 127.a.b.x and a free
 * port, PidFile, StrictModes, public-key login only). The client side has a key made for the run and a known_hosts
 * file holding every host's key, so host-key checking is real: the hosts' specs name both (`identityFile`,
 * `UserKnownHostsFile`), as a user's config would. ssh reads ~/.ssh from the passwd entry, not from $HOME, so the
 * test's files are given as options instead of through a HOME of their own.
 *
 * A host can be stopped (SIGSTOP of its sshd, its connections and its user's processes, as a machine that hangs) and
 * resumed, or killed (its sshd and every process of its user) and started again. Everything is torn down when the
 * scope closes, whether the test passed or not. Needs root (users, sshd); `sshHostsUnavailable` says why not.
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { HostSpec, RemoteHost } from "../../src/config/host-spec.ts"
import { eventually } from "./eventually.ts"
import { PROXY_SCRIPT, setLink, vethLink } from "./netns.ts"
import { freePorts } from "./ports.ts"
import { signal, treeAndUser } from "./processes.ts"
import { procState } from "./zombie.ts"

const SSHD = "/usr/sbin/sshd"

/** Why these tests cannot run here, or undefined when they can. CI runs as root and must run them. */
export const sshHostsUnavailable: string | undefined = process.getuid?.() !== 0
  ? "needs root: each test host is a Unix user of its own with its own sshd"
  : undefined

export interface SshHost extends RemoteHost {
  readonly user: string
  readonly uid: number
  readonly address: string
  readonly port: number
  readonly home: string
  /** The sshd listening for this host (undefined while killed). */
  readonly sshdPid: () => number | undefined
  /** Freezes the host: its sshd, its connections and its user's processes get SIGSTOP. */
  readonly stop: Effect.Effect<void>
  /** Undoes `stop` (SIGCONT). */
  readonly resume: Effect.Effect<void>
  /**
   * Kills the host's sshd and every process of its user, and waits until they are gone: connections drop, tmux there
   * is gone, a new connection is refused.
   */
  readonly kill: Effect.Effect<void>
  /** Starts the host's sshd again (same key, address and port) after `kill`. */
  readonly start: Effect.Effect<void, Error>
  /** Takes the host's network link down (packets dropped, nothing refused) or up again; netns hosts only. */
  readonly link: (state: "up" | "down") => Effect.Effect<void, Error>
  /** What its sshd logged (the last 1000 lines), e.g. one "Accepted publickey" per connection. */
  readonly log: () => ReadonlyArray<string>
  /** Runs a shell command as the host's user, locally (to look at the host without going through SSH). */
  readonly shell: (command: string) => string
}

export interface SshHosts {
  readonly hosts: ReadonlyArray<SshHost>
  readonly dir: string
  readonly clientKey: string
  readonly knownHosts: string
  /** Rewrites known_hosts so that `host` has a key that is not its own (the others stay right). */
  readonly misrecordKey: (host: SshHost) => void
  /** Rewrites known_hosts with every host's true key. */
  readonly recordKeys: () => void
}

const run = (file: string, args: ReadonlyArray<string>) => execFileSync(file, [...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/** The last 1000 lines of an sshd log file. */
const tail = (file: string): Array<string> => {
  if (!existsSync(file)) return []
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").slice(-1000)
}

/**
 * Starts sshd in the foreground (-D), logging to `logFile` (-E), and waits for its "Server listening" line. A file,
 * not a pipe: a pipe fills while the test's event loop is blocked (a spawnSync of orch), and sshd then blocks on
 * its next log line and stops answering.
 */
const startSshd = (config: string, logFile: string, namespace: string | undefined) =>
  Effect.callback<ChildProcess, Error>((resume) => {
    const args = ["-D", "-E", logFile, "-f", config]
    const from = existsSync(logFile) ? statSync(logFile).size : 0
    // `ip netns exec` execs sshd: the child's pid is sshd's.
    const child = namespace === undefined
      ? spawn(SSHD, args, { stdio: "ignore" })
      : spawn("ip", ["netns", "exec", namespace, SSHD, ...args], { stdio: "ignore" })
    let listening = false
    const poll = setInterval(() => {
      if (existsSync(logFile) && /Server listening on/.test(readFileSync(logFile, "utf8").slice(from))) {
        listening = true
        clearInterval(poll)
        resume(Effect.succeed(child))
      }
    }, 20)
    child.once("exit", (code) => {
      clearInterval(poll)
      if (!listening) resume(Effect.fail(new Error(`sshd exited (${code}) before listening:\n${tail(logFile).join("\n")}`)))
    })
    return Effect.sync(() => clearInterval(poll))
  })

export interface SshHostsOptions {
  /** Hosts whose sessions find no tmux on their PATH (every other program of /usr/bin is there). */
  readonly withoutTmux?: ReadonlyArray<string>
  /**
   * "loopback" (default): each sshd on its own 127.a.b.x. "netns": each sshd in a network namespace of its own,
   * linked by a veth pair to a client namespace (both made for the run, their addresses exist nowhere else); ssh
   * reaches it through a ProxyCommand run in the client namespace, as a user reaches a host behind a jump, and the
   * link can be taken down and up.
   */
  readonly network?: "loopback" | "netns"
}

/** Makes `names.length` hosts; all of them are removed when the scope closes. */
export const makeSshHosts = (names: ReadonlyArray<string>, options: SshHostsOptions = {}): Effect.Effect<SshHosts, Error, Scope.Scope> =>
  Effect.gen(function*() {
    if (sshHostsUnavailable !== undefined) return yield* Effect.fail(new Error(sshHostsUnavailable))
    if (!existsSync(SSHD)) return yield* Effect.fail(new Error("sshd is not installed: apt-get install -y openssh-server openssh-client"))
    const runId = randomBytes(3).toString("hex")
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const dir = join(tmpdir(), `orch-ssh-${runId}`)
        mkdirSync(dir, { mode: 0o755 })
        chmodSync(dir, 0o755) // the hosts' users must reach their homes below it
        return dir
      }),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    // sshd's privilege-separation directory, as its service unit makes it at boot.
    if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { mode: 0o755 })
    const clientDir = join(dir, "client")
    mkdirSync(clientDir, { mode: 0o700 })
    const clientKey = join(clientDir, "id_ed25519")
    run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `orch-test-${runId}`, "-f", clientKey])
    const knownHosts = join(clientDir, "known_hosts")
    // One /24 of loopback per run, so parallel runs do not meet.
    const net = `127.${100 + (randomBytes(1)[0]! % 100)}.${randomBytes(1)[0]!}`
    const netns = options.network === "netns"
    const proxy = join(dir, "proxy.mjs")
    if (netns) writeFileSync(proxy, PROXY_SCRIPT)
    const hosts: Array<SshHost> = []
    const keyLines = new Map<string, string>()
    const recordKeys = () => writeFileSync(knownHosts, [...keyLines.values()].join("\n") + "\n", { mode: 0o600 })
    for (const [index, name] of names.entries()) {
      const user = `orchh-${runId}-${name}`.slice(0, 32)
      const hostDir = join(dir, `host-${name}`)
      const home = join(dir, `home-${name}`)
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          run("useradd", ["--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--user-group", "--password", "*", user])
        }),
        () => {
          const uid = Number(run("id", ["-u", user]).trim())
          // A process that is still exiting keeps the user "in use": kill what is left and try again, briefly.
          return Effect.try(() => {
            const left = treeAndUser(undefined, uid)
            signal(left, "SIGCONT")
            signal(left, "SIGKILL")
            run("userdel", [user])
          }).pipe(Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 30 }), Effect.orDie)
        }
      )
      const uid = Number(run("id", ["-u", user]).trim())
      const gid = Number(run("id", ["-g", user]).trim())
      mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 })
      chmodSync(home, 0o700)
      writeFileSync(join(home, ".ssh", "authorized_keys"), readFileSync(`${clientKey}.pub`), { mode: 0o600 })
      const owned = [home, join(home, ".ssh"), join(home, ".ssh", "authorized_keys")]
      if (options.withoutTmux?.includes(name)) {
        // A PATH of its own (sshd reads ~/.ssh/environment): every program of /usr/bin but tmux.
        const bin = join(home, ".bin")
        mkdirSync(bin)
        for (const program of readdirSync("/usr/bin")) if (program !== "tmux") symlinkSync(join("/usr/bin", program), join(bin, program))
        writeFileSync(join(home, ".ssh", "environment"), `PATH=${bin}\n`, { mode: 0o600 })
        owned.push(bin, join(home, ".ssh", "environment"))
      }
      for (const path of owned) chownSync(path, uid, gid)
      mkdirSync(hostDir, { mode: 0o700 })
      const hostKey = join(hostDir, "ssh_host_ed25519_key")
      run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `host-${name}`, "-f", hostKey])
      const hostNs = `orchh-${runId}-${name}`
      const clientNs = `orchc-${runId}-${name}`
      const subnet = `10.${200 + index}.${randomBytes(1)[0]!}`
      if (netns) yield* vethLink({ hostNs, clientNs, veth: `oh${runId}${index}`, subnet, proxy })
      const address = netns ? `${subnet}.1` : `${net}.${10 + index}`
      const port = netns ? 2222 : (yield* freePorts(1, address))[0]!
      const config = join(hostDir, "sshd_config")
      writeFileSync(
        config,
        [
          `ListenAddress ${address}`,
          `Port ${port}`,
          `HostKey ${hostKey}`,
          `PidFile ${join(hostDir, "sshd.pid")}`,
          "AuthorizedKeysFile .ssh/authorized_keys",
          "PubkeyAuthentication yes",
          "PasswordAuthentication no",
          "KbdInteractiveAuthentication no",
          "UsePAM no",
          "StrictModes yes",
          "PermitRootLogin no",
          `AllowUsers ${user}`,
          "X11Forwarding no",
          "PrintMotd no",
          "PrintLastLog no",
          "PermitUserEnvironment PATH",
          "LogLevel VERBOSE"
        ].join("\n") + "\n"
      )
      keyLines.set(name, `[${address}]:${port} ${readFileSync(`${hostKey}.pub`, "utf8").split(" ").slice(0, 2).join(" ")}`)
      const logFile = join(hostDir, "sshd.log")
      let sshd: ChildProcess | undefined
      const start = Effect.gen(function*() {
        sshd = yield* startSshd(config, logFile, netns ? hostNs : undefined)
      })
      // Done once they are gone (or zombies, their sockets closed): kill(2) only sends SIGKILL, and until the sshd is
      // gone its listening socket still completes a client's handshake, which ssh then sees reset, not refused.
      const kill = Effect.suspend(() => {
        const pids = treeAndUser(sshd?.pid, uid)
        signal(pids, "SIGCONT")
        signal(pids, "SIGKILL")
        sshd = undefined
        return eventually(`host ${name}'s killed processes to be gone`, () => pids.every((pid) => [undefined, "Z"].includes(procState(pid))))
      }).pipe(Effect.asVoid, Effect.orDie)
      yield* Effect.acquireRelease(start, () => kill)
      const spec: HostSpec = {
        ssh: { user, hostname: address, port },
        identityFile: clientKey,
        sshOptions: {
          UserKnownHostsFile: knownHosts,
          IdentitiesOnly: "yes",
          ...(netns ? { ProxyCommand: `ip netns exec ${clientNs} ${process.execPath} ${proxy} %h %p` } : {})
        }
      }
      hosts.push({
        name,
        spec,
        user,
        uid,
        address,
        port,
        home,
        sshdPid: () => sshd?.pid,
        log: () => tail(logFile),
        stop: Effect.sync(() => signal(treeAndUser(sshd?.pid, uid), "SIGSTOP")),
        resume: Effect.sync(() => signal(treeAndUser(sshd?.pid, uid), "SIGCONT")),
        kill,
        start,
        link: (state) =>
          netns
            ? setLink(clientNs, `oh${runId}${index}c`, state)
            : Effect.fail(new Error(`host ${name} is on loopback: only netns hosts have a link to take down`)),
        shell: (command) => execFileSync("su", ["-s", "/bin/sh", "-c", command, user], { encoding: "utf8", cwd: "/" })
      })
    }
    recordKeys()
    const misrecordKey = (host: SshHost) => {
      const other = join(clientDir, `wrong-${host.name}`)
      rmSync(other, { force: true })
      rmSync(`${other}.pub`, { force: true })
      run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other])
      const right = keyLines.get(host.name)!
      keyLines.set(host.name, `[${host.address}]:${host.port} ${readFileSync(`${other}.pub`, "utf8").split(" ").slice(0, 2).join(" ")}`)
      recordKeys()
      keyLines.set(host.name, right)
    }
    return { hosts, dir, clientKey, knownHosts, misrecordKey, recordKeys }
  })
