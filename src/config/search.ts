/**
 * Where orch looks for its config, in the spec's order: `ORCH_CONFIG_PATH`; `orchestrator.yaml` / `.yml` in
 * the working directory and each parent; the same from an explicit start directory; then the home locations.
 * Plain functions over the machine's facts, with no Effect: the fast path (src/ipc/fast-path.ts) uses them too.
 */
import { statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import type { HostShape } from "./host.ts"

export const CONFIG_FILE_NAMES = ["orchestrator.yaml", "orchestrator.yml"] as const

const upwards = (start: string): Array<string> => {
  const places: Array<string> = []
  for (let dir = resolve(start);; dir = dirname(dir)) {
    for (const name of CONFIG_FILE_NAMES) places.push(join(dir, name))
    if (dirname(dir) === dir) return places
  }
}

/** Every file that would be tried, in order. With `ORCH_CONFIG_PATH` set, only that file. */
export const searchPlaces = (host: HostShape, startDir?: string): Array<string> => {
  const fromEnv = host.env.ORCH_CONFIG_PATH
  if (fromEnv !== undefined && fromEnv !== "") return [resolve(host.cwd, fromEnv)]
  const places = upwards(host.cwd)
  if (startDir !== undefined) places.push(...upwards(resolve(host.cwd, startDir)))
  places.push(
    join(host.homeDir, ".orchestrator.yaml"),
    join(host.homeDir, ".orchestrator.yml"),
    join(host.homeDir, ".config", "orchestrator", "config.yaml"),
    join(host.homeDir, ".config", "orchestrator", "config.yml")
  )
  return [...new Set(places)]
}

export const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The config file a command run here would load (the first place that exists), or undefined. */
export const configHere = (host: HostShape): string | undefined => searchPlaces(host).find(isFile)
