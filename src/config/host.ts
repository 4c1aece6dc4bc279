/**
 * What configuration loading reads from the machine: the environment, the home directory, the working
 * directory. A Reference with the process's values as default, so the library API needs no services and
 * tests pass their own.
 */
import * as Context from "effect/Context"
import { homedir } from "node:os"

export interface HostShape {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homeDir: string
  readonly cwd: string
}

export const Host = Context.Reference<HostShape>("orch/config/Host", {
  defaultValue: () => ({ env: process.env, homeDir: homedir(), cwd: process.cwd() })
})

/** `~/x` → `<home>/x`; `~` → `<home>`; anything else unchanged. */
export const expandHome = (path: string, homeDir: string): string =>
  path === "~" ? homeDir : path.startsWith("~/") ? `${homeDir}/${path.slice(2)}` : path
