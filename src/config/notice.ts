/**
 * Which config a command acts under, said out loud when it is not the one the current directory gives: a running
 * supervisor serves its own file whatever directory a command runs in, and a command on a session without one uses
 * the file that session was spawned under. Pure: one line for stderr, or nothing when they are the same file.
 */
import { relative } from "node:path"

export type ActingConfig =
  /** The running supervisor serves this file. */
  | { readonly _tag: "Supervisor"; readonly path: string }
  /** The file session `sessionId` was spawned under (its record remembers it). */
  | { readonly _tag: "Session"; readonly path: string; readonly sessionId: string }

const isWithin = (path: string, dir: string): boolean => dir !== "" && (path === dir || path.startsWith(`${dir}/`))

/**
 * A path as a person reads it here: `./x` under the working directory, `~/x` under home. A `./` path that climbs
 * into home from outside it (cwd /tmp, home /tmp/me) would hide that the file is the user's own: it is shown `~/x`.
 */
export const shownPath = (path: string, where: { readonly cwd: string; readonly homeDir: string }): string => {
  const underHome = where.homeDir !== "" && path.startsWith(`${where.homeDir}/`)
  const fromHere = relative(where.cwd, path)
  const belowHere = fromHere !== "" && !fromHere.startsWith("..") && !fromHere.startsWith("/")
  if (belowHere && (!underHome || isWithin(where.cwd, where.homeDir))) return `./${fromHere}`
  return underHome ? `~/${path.slice(where.homeDir.length + 1)}` : path
}

/** The line to print, or undefined when the command acts under the config found here anyway. `here`: what the search finds. */
export const configNotice = (
  acting: ActingConfig,
  here: string | undefined,
  where: { readonly cwd: string; readonly homeDir: string }
): string | undefined => {
  if (acting.path === here) return undefined
  const whose = acting._tag === "Supervisor"
    ? `the running supervisor's config ${acting.path}`
    : `${acting.path}, the config ${acting.sessionId} was spawned under`
  return `using ${whose}, ${here === undefined ? "as no config is found from here" : `not ${shownPath(here, where)}`}`
}
