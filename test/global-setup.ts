/** Builds dist/ once before the suite, so tests that run the `orch` command run the current code. */
import { execFileSync } from "node:child_process"

export default function setup() {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
