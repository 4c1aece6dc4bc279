/** What a git remote URL says about a repository: `owner/repo` on a GitHub-style host, in any of the usual URL forms. */
const REMOTE = /^(?:[a-z+]+:\/\/)?(?:[^@/\s]+@)?([^:/\s]+)(?::\d+)?[:/]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/

/** `owner/repo` from a remote URL of a GitHub-style host (`host/owner/repo`). */
export const repoFromRemoteUrl = (url: string): string | undefined => {
  const match = url.trim().match(REMOTE)
  return match ? `${match[2]}/${match[3]}` : undefined
}

/** The host of such a remote (`github.com`, `gitlab.example.org`). */
export const hostOfRemoteUrl = (url: string): string | undefined => url.trim().match(REMOTE)?.[1]

export type RemoteKind =
  | { readonly _tag: "GitHub"; readonly repo: string }
  /** No origin, a local path, or a host that is not GitHub: no repohost orch can ask. */
  | { readonly _tag: "Local"; readonly reason: string }

/** Hosts known not to speak GitHub's API. */
const NOT_GITHUB = /(^|\.)(gitlab\.[a-z.]+|gitlab|bitbucket\.org|codeberg\.org|sr\.ht|gitea\.[a-z.]+|dev\.azure\.com|visualstudio\.com)$/i

/**
 * Whether the repository's `origin` is GitHub-style (`host/owner/repo` on github.com, a GitHub Enterprise host or
 * any host not known to be something else), which the repohost tracker and scm speak to; no origin, a local path,
 * or a host known not to be GitHub (gitlab.com, bitbucket.org, …) is worked on locally. Pure.
 */
export const remoteKind = (origin: string | undefined): RemoteKind => {
  if (origin === undefined || origin.trim() === "") return { _tag: "Local", reason: "no origin remote" }
  const repo = repoFromRemoteUrl(origin)
  const host = hostOfRemoteUrl(origin)
  if (repo === undefined || host === undefined || host === "." || host === "..") {
    return { _tag: "Local", reason: `origin ${origin.trim()} is not on a repohost` }
  }
  if (NOT_GITHUB.test(host)) return { _tag: "Local", reason: `origin is on ${host}, not GitHub` }
  return { _tag: "GitHub", repo }
}
