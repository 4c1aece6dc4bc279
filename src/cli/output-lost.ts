/**
 * Output that could not be written fails the command, saying so. Node's console drops a failed write to stdout (a
 * full disk, a device that refuses), so `orch status --json > file` on a full disk exited 0 with the file empty. A
 * reader that left (EPIPE, as `| head` does) is no failure: it has what it wanted.
 */
const lostOutput = (error: NodeJS.ErrnoException): string =>
  `the output could not be written (${error.message}), so what this command printed is incomplete; free space where it goes, or send it elsewhere`

export const failOnLostOutput = (): void => {
  let lost: NodeJS.ErrnoException | undefined
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") lost ??= error
  })
  process.on("exit", (code) => {
    if (lost === undefined || code !== 0) return
    process.exitCode = 1
    try {
      process.stderr.write(`orch: ${lostOutput(lost)}\n`)
    } catch {}
  })
}
