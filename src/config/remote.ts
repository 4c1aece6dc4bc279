/** `owner/repo` from a git remote URL of a GitHub-style host, in any of the usual URL forms. */
export const repoFromRemoteUrl = (url: string): string | undefined => {
  const match = url.trim().match(/^(?:[a-z+]+:\/\/)?(?:[^@/\s]+@)?[^:/\s]+(?::\d+)?[:/]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/)
  return match ? `${match[1]}/${match[2]}` : undefined
}
