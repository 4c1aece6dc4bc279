/** Why a file could not be read, in words (never an errno code). */
export const fileProblem = (path: string, error: unknown): string => {
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case "ENOENT":
      return `${path} does not exist`
    case "EACCES":
    case "EPERM":
      return `you may not read ${path} (permission denied)`
    case "EISDIR":
      return `${path} is a directory, not a file`
    case "ENOTDIR":
      return `${path} does not exist (a part of its path is a file, not a directory)`
    default: {
      // Node's own text, without its code and syscall: "EMFILE: too many open files, open '/x'".
      const text = error instanceof Error ? error.message.replace(/^[A-Z0-9]+: /, "").replace(/, \w+ '.*'$/, "") : String(error)
      return `cannot read ${path}: ${text}`
    }
  }
}
