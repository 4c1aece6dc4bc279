/**
 * The session prefix a project gets when it sets none, from the basename of its path:
 * 4 characters or fewer: the name lowercased; more than one capital letter: the capitals (`PyTorch` → `pt`);
 * a `-` or `_` in it: the first letter of each part (`agent-orchestrator` → `ao`); otherwise the first 3 characters.
 */
export const generateSessionPrefix = (basename: string): string => {
  if (basename.length <= 4) return basename.toLowerCase()
  const capitals = basename.match(/[A-Z]/g) ?? []
  if (capitals.length > 1) return capitals.join("").toLowerCase()
  const separator = basename.includes("-") ? "-" : basename.includes("_") ? "_" : undefined
  if (separator !== undefined) {
    return basename.split(separator).filter((part) => part.length > 0).map((part) => part[0]).join("").toLowerCase()
  }
  return basename.slice(0, 3).toLowerCase()
}
