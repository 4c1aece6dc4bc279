/**
 * What a value read from JSON is, asked without Schema: for the code that loads no Effect (the fast path, and the
 * plain readers of the event log and the queue file it shares with the CLI). Everything else decodes with Schema.
 */

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

export const isString = (value: unknown): value is string => typeof value === "string"
