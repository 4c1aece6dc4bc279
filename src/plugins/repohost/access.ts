/**
 * What the GitHub (`repohost`) tracker and scm share: the REST API's base, the token (config, environment, else
 * `gh auth token`), the request headers, and the process's gateways (one per credential, gateway.ts).
 */
import { execFileSync } from "node:child_process"
import type { TrackerConfig } from "../../config/schema.ts"
import { type Gateways, makeGateways } from "./gateway.ts"

const DEFAULT_API_URL = "https://api.github.com"

/** The REST API's base: `apiUrl` (GitHub Enterprise: https://HOST/api/v3), default github.com's. */
export const repohostApiUrl = (config: Readonly<Record<string, unknown>>): string =>
  (typeof config.apiUrl === "string" ? config.apiUrl : DEFAULT_API_URL).replace(/\/+$/, "")

/** The GitHub CLI's token (`gh auth token`), when `gh` is installed and logged in: asked once, at first need. */
const ghAuthTokenOnce = (env: Readonly<Record<string, string | undefined>>): () => string | undefined => {
  let asked: { readonly token: string | undefined } | undefined
  return () => {
    if (asked === undefined) {
      try {
        asked = {
          token: execFileSync("gh", ["auth", "token"], { encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "ignore"], env: env as NodeJS.ProcessEnv })
            .trim() || undefined
        }
      } catch {
        asked = { token: undefined }
      }
    }
    return asked.token
  }
}

/**
 * What the repohost plugins of a process share: the gateways (one per credential) and the `gh auth token` answer.
 * ProjectPlugins makes one for all projects; a tracker or scm made on its own gets one of its own.
 */
export interface RepohostAccess {
  readonly gateways: Gateways
  readonly ghToken: () => string | undefined
}

export const makeRepohostAccess = (env: Readonly<Record<string, string | undefined>>): RepohostAccess => ({
  gateways: makeGateways(),
  ghToken: ghAuthTokenOnce(env)
})

/** Token: `token` in the plugin's config, else $GITHUB_TOKEN, else $GH_TOKEN, else `gh auth token`. */
export const repohostToken = (config: TrackerConfig, env: Readonly<Record<string, string | undefined>>, access: RepohostAccess): string | undefined =>
  (typeof config.token === "string" && config.token !== "" ? config.token : undefined) || env.GITHUB_TOKEN || env.GH_TOKEN || access.ghToken()

export const repohostHeaders = (token: string | undefined): Record<string, string> => ({
  accept: "application/vnd.github+json",
  "x-github-api-version": "2022-11-28",
  "user-agent": "orch",
  ...(token !== undefined ? { authorization: `Bearer ${token}` } : {})
})
