/** `findConfig`: the config file the search (src/config/search.ts) finds, as an Effect over the Host. */
import * as Effect from "effect/Effect"
import { Host, type HostShape } from "./host.ts"
import { isFile, searchPlaces } from "./search.ts"

export { CONFIG_FILE_NAMES, configHere, isFile, searchPlaces } from "./search.ts"

/** The absolute path of the config file that would be loaded, or null. */
export const findConfig = (startDir?: string): Effect.Effect<string | null> =>
  Effect.map(Host, (host: HostShape) => searchPlaces(host, startDir).find(isFile) ?? null)
