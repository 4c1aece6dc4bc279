/** Reading `orchestrator.yaml`: find it, parse the YAML with positions, validate. */
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml"
import { fileProblem } from "../process/file-problem.ts"
import { type ConfigError, ConfigNotFoundError, ConfigParseError, ConfigReadError } from "./errors.ts"
import { isFile, searchPlaces } from "./find.ts"
import { Host } from "./host.ts"
import type { OrchestratorConfig } from "./schema.ts"
import { validateConfig } from "./validate.ts"

type Path = ReadonlyArray<string | number>

/** Offset of the deepest node of `path` that exists: the key of a map entry, or a list item. */
const offsetOf = (doc: Document, path: Path): number | undefined => {
  let node: unknown = doc.contents
  let offset: number | undefined = doc.contents?.range?.[0]
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment))
      if (pair === undefined) return offset
      offset = isScalar(pair.key) ? pair.key.range?.[0] : offset
      node = pair.value
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as { range?: [number, number, number] } | undefined
      if (item === undefined) return offset
      offset = item.range?.[0] ?? offset
      node = item
    } else {
      return offset
    }
  }
  return offset
}

/** Parses YAML text; a syntax error is a ConfigParseError with line and column. */
export const parseConfigText = (file: string, text: string) => {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false })
  const syntaxError = doc.errors[0]
  if (syntaxError !== undefined) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0])
    const reason = syntaxError.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")
    return Effect.fail(new ConfigParseError({ file, line, column: col, reason }))
  }
  return Effect.try({
    try: () => ({
      raw: doc.toJS({ maxAliasCount: 100 }) as unknown,
      locate: (path: Path) => {
        const offset = offsetOf(doc, path)
        if (offset === undefined) return undefined
        const { line, col } = lineCounter.linePos(offset)
        return `${file}:${line}:${col}`
      }
    }),
    catch: (cause) => new ConfigParseError({ file, line: 1, column: 1, reason: cause instanceof Error ? cause.message : String(cause) })
  })
}

/** A config loaded from its file, with what later checks need to say where a value is written. */
export interface LoadedConfig {
  readonly config: OrchestratorConfig
  /** Absolute path of the file. */
  readonly path: string
  /** The document as written (before `${VAR}` expansion and defaults). */
  readonly raw: unknown
  /** `file:line:col` of the value at a path (of the deepest part of it that is written). */
  readonly locate: (path: Path) => string | undefined
}

/** Loads, validates and normalizes the config; returns it with the file it came from and where its values are written. */
export const loadConfigFile = Effect.fn("loadConfigFile")(function*(path?: string): Effect.fn.Return<LoadedConfig, ConfigError> {
  const host = yield* Host
  const file = path === undefined ? searchPlaces(host).find(isFile) : resolve(host.cwd, path)
  if (file === undefined || (path !== undefined && !isFile(file))) {
    return yield* new ConfigNotFoundError({ searched: file === undefined ? searchPlaces(host) : [file] })
  }
  const text = yield* Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (cause) => new ConfigReadError({ file, reason: fileProblem(file, cause) })
  })
  const { raw, locate } = yield* parseConfigText(file, text)
  const config = yield* validateConfig(raw, { configPath: file, locate })
  return { config, path: file, raw, locate }
})

/** Loads, validates and normalizes the config; returns it with the absolute path it came from. */
export const loadConfigWithPath = (path?: string): Effect.Effect<{ readonly config: OrchestratorConfig; readonly path: string }, ConfigError> =>
  Effect.map(loadConfigFile(path), ({ config, path }) => ({ config, path }))

export const loadConfig = (path?: string): Effect.Effect<OrchestratorConfig, ConfigError> => Effect.map(loadConfigWithPath(path), (loaded) => loaded.config)
