/**
 * What configuration loading reads from the machine: the environment, the home directory, the working
 * directory. A Reference whose default reads the process's values each time they are asked for (a program
 * that changes directory finds the config of its new directory), so the library API needs no services and
 * tests pass their own.
 */
import * as Context from "effect/Context"
import { homedir } from "node:os"

export interface HostShape {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homeDir: string
  readonly cwd: string
}

/** The process itself: every read asks Node again (`process.chdir` and a changed `HOME` are seen). */
const processHost: HostShape = {
  get env() {
    return process.env
  },
  get homeDir() {
    return homedir()
  },
  get cwd() {
    return process.cwd()
  }
}

export const Host = Context.Reference<HostShape>("orch/config/Host", { defaultValue: () => processHost })

/** `~/x` → `<home>/x`; `~` → `<home>`; anything else unchanged. */
export const expandHome = (path: string, homeDir: string): string => path === "~" ? homeDir : path.startsWith("~/") ? `${homeDir}/${path.slice(2)}` : path
