// What a running Node process (the supervisor) holds, asked through its inspector, so any build can be measured
// without code of its own for it: the process is started with `--inspect-port=<port>` in NODE_OPTIONS (which only
// names the port), and SIGUSR1 opens the inspector when the bench asks. A forced full GC first, so the heap figures
// are what the process retains, not the slack V8 keeps between collections; then, if asked, a heap snapshot.
import { createWriteStream } from "node:fs"

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))

/** The NODE_OPTIONS for a process to be inspected later on `port` (appended to the ones already set). */
export const inspectableOptions = (port) => `${process.env.NODE_OPTIONS ?? ""} --inspect-port=127.0.0.1:${port}`.trim()

const debuggerUrl = async (pid, port) => {
  process.kill(pid, "SIGUSR1")
  for (let tries = 0; tries < 100; tries++) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()
      if (targets[0]?.webSocketDebuggerUrl) return targets[0].webSocketDebuggerUrl
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`the inspector of process ${pid} did not open on port ${port}`)
}

/** A DevTools protocol session with process `pid`: `send(method, params)`, `on(event, listener)`, `close()`. */
export const openInspector = async (pid, port) => session(await debuggerUrl(pid, port))

const session = (url) =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const pending = new Map()
    const listeners = new Map()
    let next = 1
    socket.onerror = () => reject(new Error(`cannot connect to ${url}`))
    socket.onmessage = ({ data }) => {
      const message = JSON.parse(data)
      if (message.id !== undefined) {
        const { resolve: done, reject: failed } = pending.get(message.id)
        pending.delete(message.id)
        if (message.error) failed(new Error(message.error.message))
        else done(message.result)
      } else listeners.get(message.method)?.(message.params)
    }
    socket.onopen = () =>
      resolve({
        send: (method, params = {}) =>
          new Promise((done, failed) => {
            const id = next++
            pending.set(id, { resolve: done, reject: failed })
            socket.send(JSON.stringify({ id, method, params }))
          }),
        on: (method, listener) => listeners.set(method, listener),
        close: () => socket.close()
      })
  })

/**
 * `process.memoryUsage()` of process `pid` after a full GC (bytes), and its RSS then; with `snapshotPath`, a heap
 * snapshot written there (taken after the figures, since taking one allocates).
 */
export const heapAfterGc = async (pid, port, snapshotPath) => {
  const inspector = await openInspector(pid, port)
  try {
    // Twice: the first collection's finalizers and weak callbacks can free more in the second.
    await inspector.send("HeapProfiler.collectGarbage")
    await inspector.send("HeapProfiler.collectGarbage")
    const { result } = await inspector.send("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true })
    const usage = JSON.parse(result.value)
    if (snapshotPath !== undefined) {
      const file = createWriteStream(snapshotPath)
      const written = new Promise((resolve, reject) => file.on("finish", resolve).on("error", reject))
      inspector.on("HeapProfiler.addHeapSnapshotChunk", ({ chunk }) => file.write(chunk))
      await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false })
      file.end()
      await written
    }
    return usage
  } finally {
    inspector.close()
  }
}

/** RSS and the V8 heap's spaces (size / used, MB) of the inspected process, as one line. */
export const heapLine = async (inspector) => {
  const expression = `JSON.stringify([process.memoryUsage().rss, ...process.getBuiltinModule("v8").getHeapSpaceStatistics()
    .filter((s) => s.space_size > 0).map((s) => [s.space_name.replace(/_space$/, ""), s.space_size, s.space_used_size])])`
  const { result } = await inspector.send("Runtime.evaluate", { expression, returnByValue: true })
  const [rss, ...spaces] = JSON.parse(result.value)
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1)
  return `RSS ${mb(rss)} MB; ${spaces.map(([name, size, used]) => `${name} ${mb(size)}/${mb(used)}`).join(", ")}`
}

/**
 * Starts sampling what the process allocates, the garbage included (`includeObjectsCollectedBy…`): `stop()` answers
 * the profile (a `.heapprofile`, which Chrome's DevTools opens), each sample's stack with the bytes it stands for.
 */
export const sampleAllocations = async (inspector) => {
  await inspector.send("HeapProfiler.startSampling", {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
  return { stop: async () => (await inspector.send("HeapProfiler.stopSampling")).profile }
}
