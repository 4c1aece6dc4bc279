/** A task written by a person (`--task`), for people: its title. Pure. */

const MAX_TITLE = 100

/** The task's first non-empty line, spaces collapsed, shortened to 100 characters. */
export const taskTitle = (text: string): string => {
  const line = text.split("\n").map((l) => l.replace(/\s+/g, " ").trim()).find((l) => l !== "") ?? ""
  return line.length <= MAX_TITLE ? line : `${line.slice(0, MAX_TITLE - 1).trimEnd()}…`
}
