/** Quoting for a POSIX shell: what the local launch line and every script run on a host through ssh share. */

/** A word /bin/sh takes literally, whatever it holds (quotes, `$`, backticks, newlines, any UTF-8). */
export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`
