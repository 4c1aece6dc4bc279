/**
 * Network namespaces for test hosts: a host namespace and a client namespace joined by a veth pair, both made for
 * the run (their addresses exist nowhere else), removed with the scope. The client reaches the host through a
 * ProxyCommand run in the client namespace (PROXY_SCRIPT), as a user reaches a host behind a jump.
 */
import * as Effect from "effect/Effect"
import { execFileSync, spawnSync } from "node:child_process"
import { processesWithArgument, signal } from "./processes.ts"

/** The ProxyCommand of netns hosts: stdin/stdout to a TCP connection (%h %p), in the client namespace. */
export const PROXY_SCRIPT = `import { connect } from "node:net"
const [host, port] = process.argv.slice(2)
const socket = connect(Number(port), host)
process.stdin.pipe(socket)
socket.pipe(process.stdout)
process.stdin.on("end", () => socket.end())
socket.on("error", (error) => { process.stderr.write("proxy: " + error.message + "\\n"); process.exit(1) })
socket.on("close", () => process.exit(0))
`

const ip = (args: ReadonlyArray<string>) => execFileSync("ip", [...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

export interface VethLink {
  readonly hostNs: string
  readonly clientNs: string
  /** Up to 13 characters: the ends are `<veth>h` (host side) and `<veth>c` (client side). */
  readonly veth: string
  /** Three octets of a /30: the host is `.1`, the client `.2`. */
  readonly subnet: string
  /** The run's proxy script: its processes are ended with the namespaces. */
  readonly proxy: string
}

export const vethLink = (link: VethLink) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        ip(["netns", "add", link.hostNs])
        ip(["netns", "add", link.clientNs])
        ip(["link", "add", `${link.veth}h`, "netns", link.hostNs, "type", "veth", "peer", "name", `${link.veth}c`, "netns", link.clientNs])
        ip(["-n", link.hostNs, "addr", "add", `${link.subnet}.1/30`, "dev", `${link.veth}h`])
        ip(["-n", link.clientNs, "addr", "add", `${link.subnet}.2/30`, "dev", `${link.veth}c`])
        for (const [ns, dev] of [[link.hostNs, `${link.veth}h`], [link.clientNs, `${link.veth}c`]] as const) {
          ip(["-n", ns, "link", "set", "lo", "up"])
          ip(["-n", ns, "link", "set", dev, "up"])
        }
      },
      catch: (error) =>
        new Error(`cannot make network namespaces ${link.hostNs}, ${link.clientNs} (needs iproute2: apt-get install -y iproute2): ${String(error)}`)
    }),
    () =>
      Effect.sync(() => {
        signal(processesWithArgument(link.proxy), "SIGKILL")
        for (const ns of [link.hostNs, link.clientNs]) spawnSync("ip", ["netns", "del", ns], { stdio: "ignore" })
      })
  )

/** Takes a namespace's link down (packets dropped, nothing refused) or up again. */
export const setLink = (ns: string, dev: string, state: "up" | "down") =>
  Effect.try({ try: () => void ip(["-n", ns, "link", "set", dev, state]), catch: (error) => new Error(String(error)) })
