/** Says which config a command acts under when it is not the one this directory gives (src/config/notice.ts), on stderr. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { configHere } from "../config/find.ts"
import { Host } from "../config/host.ts"
import { type ActingConfig, configNotice } from "../config/notice.ts"

export const sayActingConfig = (acting: ActingConfig) =>
  Effect.gen(function*() {
    const host = yield* Host
    const notice = configNotice(acting, configHere(host), host)
    if (notice !== undefined) yield* Console.error(`orch: ${notice}`)
  })

/** The same for a running supervisor that says which file it serves (one started from code serves none). */
export const sayServedConfig = (info: { readonly configPath?: string | undefined }) =>
  info.configPath === undefined ? Effect.void : sayActingConfig({ _tag: "Supervisor", path: info.configPath })
