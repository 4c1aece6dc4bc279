/**
 * How the emulator learns of pushes: a `post-receive` hook in the bare repository that posts git's ref
 * updates to the emulator before `git push` returns, so CI starts and webhooks go out at push time, as on
 * GitHub. `core.hooksPath` is set in the bare repository so a user's global hooks path cannot hide it.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const HOOK_DIR = "orch-emulator-hooks"

// It exits as soon as the post is answered: a kept-alive connection would hold `git push` for seconds.
export const installPushHook = (gitDir: string, endpoint: string): void => {
  const dir = join(gitDir, HOOK_DIR)
  mkdirSync(dir, { recursive: true })
  const script = `let d="";process.stdin.on("data",(c)=>d+=c).on("end",()=>fetch(${
    JSON.stringify(endpoint)
  },{method:"POST",body:d,signal:AbortSignal.timeout(5000)}).catch(()=>{}).finally(()=>process.exit(0)))`
  writeFileSync(join(dir, "post-receive"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -e '${script}'\n`)
  chmodSync(join(dir, "post-receive"), 0o755)
  execFileSync("git", ["--git-dir", gitDir, "config", "core.hooksPath", dir])
}

export const removePushHook = (gitDir: string): void => {
  try {
    execFileSync("git", ["--git-dir", gitDir, "config", "--unset", "core.hooksPath"], { stdio: "ignore" })
  } catch {
    // already gone
  }
  rmSync(join(gitDir, HOOK_DIR), { recursive: true, force: true })
}

/** git's post-receive input: one `<old> <new> <ref>` line per updated ref. */
export const parseRefUpdates = (text: string) =>
  text.split("\n").flatMap((line) => {
    const [before, after, ref] = line.trim().split(/\s+/)
    return before && after && ref ? [{ before, after, ref }] : []
  })
