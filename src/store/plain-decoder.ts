/**
 * A Schema's decoder compiled into plain functions, for schemas of plain JSON data (structs, records, arrays,
 * strings, numbers with `isInt`, booleans, literals, `NullOr`, unions of those): no transformation, no other check.
 * It builds the same value the Schema's own decoder builds (declared keys in the schema's order, unknown keys
 * dropped), at a fraction of its cost, which `orch status` pays once per record. It only accepts: any input it does
 * not accept (a record of an older shape, an invalid one) is the Schema's to decode, and to explain.
 * `compilePlainDecoder` answers undefined for a schema it cannot compile (its AST holds a node it does not know).
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** What a compiled step answers for an input it does not accept. */
const REJECT: unique symbol = Symbol("plain-decoder/reject")
type Step = (input: unknown) => unknown

const isIntCheck = (check: SchemaAST.Check<unknown>): boolean => check.annotations?.representation?.id === "effect/schema/isInt"

// The Schema's parser asks `key in input` (own or inherited), except for `__proto__`.
const hasKey = (input: object, key: PropertyKey) => (key === "__proto__" ? Object.hasOwn(input, key) : key in input)

const assign = (out: Record<PropertyKey, unknown>, key: PropertyKey, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

const isRecord = (input: unknown): input is Record<PropertyKey, unknown> => typeof input === "object" && input !== null && !Array.isArray(input)

const objects = (ast: SchemaAST.Objects): Step | undefined => {
  const index = ast.indexSignatures[0]
  if (ast.indexSignatures.length > 1 || (index !== undefined && ast.propertySignatures.length > 0)) return undefined
  if (index !== undefined) {
    if (index.parameter._tag !== "String" || index.parameter.checks !== undefined || index.parameter.encoding !== undefined) return undefined
    const value = compile(index.type)
    if (value === undefined) return undefined
    return (input) => {
      if (!isRecord(input)) return REJECT
      const out: Record<PropertyKey, unknown> = {}
      for (const key of Object.keys(input)) {
        const decoded = value(input[key])
        if (decoded === REJECT) return REJECT
        assign(out, key, decoded)
      }
      return out
    }
  }
  const generated = generatedStruct(ast)
  if (generated !== null) return generated
  const properties: Array<{ readonly name: PropertyKey; readonly optional: boolean; readonly step: Step }> = []
  for (const property of ast.propertySignatures) {
    const step = compile(property.type)
    if (step === undefined) return undefined
    properties.push({ name: property.name, optional: SchemaAST.isOptional(property.type), step })
  }
  return (input) => {
    if (!isRecord(input)) return REJECT
    const out: Record<PropertyKey, unknown> = {}
    for (const { name, optional, step } of properties) {
      if (!hasKey(input, name)) {
        if (optional) continue
        return REJECT
      }
      const decoded = step(input[name])
      if (decoded === REJECT) return REJECT
      assign(out, name, decoded)
    }
    return out
  }
}

/**
 * A check of `v` as a JavaScript expression, for a type whose decoded value is its input (a primitive, a literal, a
 * union of those); undefined for any other. It accepts exactly what `compile` would.
 */
const inlineCheck = (ast: SchemaAST.AST): string | undefined => {
  if (ast.encoding !== undefined) return undefined
  if (ast._tag === "Number") {
    if (ast.checks === undefined) return `typeof v === "number"`
    return ast.checks.length === 1 && isIntCheck(ast.checks[0]!) ? `(typeof v === "number" && Number.isSafeInteger(v))` : undefined
  }
  if (ast.checks !== undefined) return undefined
  switch (ast._tag) {
    case "String":
      return `typeof v === "string"`
    case "Boolean":
      return `typeof v === "boolean"`
    case "Null":
      return `v === null`
    case "Unknown":
      return `true`
    case "Literal":
      return typeof ast.literal === "string" || typeof ast.literal === "boolean" || Number.isFinite(ast.literal)
        ? `v === ${JSON.stringify(ast.literal)}`
        : undefined
    case "Union": {
      const members = ast.types.map(inlineCheck)
      return members.every((member) => member !== undefined) ? `(${members.join(" || ")})` : undefined
    }
    default:
      return undefined
  }
}

/**
 * A struct's step as one generated function: each property's check written out in line, and a nested struct, array
 * or union called as its own step. A record is decoded before any of this code is optimized, as a command's first
 * and only pass over a thousand records; straight-line code runs that pass several times faster than a loop over
 * the properties' closures. The source holds only the schema's own property names and literals, each written by
 * `JSON.stringify`. Null when the struct cannot be generated (a `__proto__` or symbol key: the loop handles those).
 */
const generatedStruct = (ast: SchemaAST.Objects): Step | undefined | null => {
  const steps: Array<Step> = []
  const lines: Array<string> = []
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string" || property.name === "__proto__") return null
    const key = JSON.stringify(property.name)
    const check = inlineCheck(property.type)
    let take: string
    if (check !== undefined) {
      take = `v = input[${key}]; if (!(${check})) return REJECT; out[${key}] = v;`
    } else {
      const step = compile(property.type)
      if (step === undefined) return undefined
      take = `v = steps[${steps.push(step) - 1}](input[${key}]); if (v === REJECT) return REJECT; out[${key}] = v;`
    }
    lines.push(SchemaAST.isOptional(property.type) ? `if (${key} in input) { ${take} }` : `if (!(${key} in input)) return REJECT; ${take}`)
  }
  const source = [
    `return (input) => {`,
    `if (typeof input !== "object" || input === null || Array.isArray(input)) return REJECT;`,
    `const out = {}; let v;`,
    ...lines,
    `return out; };`
  ].join("\n")
  // oxlint-disable-next-line no-new-func -- generated from the schema's AST alone (see above)
  return new Function("REJECT", "steps", source)(REJECT, steps) as Step
}

const arrays = (ast: SchemaAST.Arrays): Step | undefined => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return undefined
  const item = compile(ast.rest[0]!)
  if (item === undefined) return undefined
  return (input) => {
    if (!Array.isArray(input)) return REJECT
    const out: Array<unknown> = []
    for (const element of input) {
      const decoded = item(element)
      if (decoded === REJECT) return REJECT
      out.push(decoded)
    }
    return out
  }
}

// Members that can never both accept one input (one of each kind of container at most), so the first that accepts is
// the one the Schema's union picks.
const union = (ast: SchemaAST.Union): Step | undefined => {
  const containers = ast.types.filter((member) => member._tag === "Objects" || member._tag === "Arrays")
  if (containers.length > 1) return undefined
  const members: Array<Step> = []
  for (const member of ast.types) {
    const step = compile(member)
    if (step === undefined) return undefined
    members.push(step)
  }
  return (input) => {
    for (const member of members) {
      const decoded = member(input)
      if (decoded !== REJECT) return decoded
    }
    return REJECT
  }
}

const compile = (ast: SchemaAST.AST): Step | undefined => {
  if (ast.encoding !== undefined) return undefined
  if (ast._tag === "Number") {
    if (ast.checks === undefined) return (input) => (typeof input === "number" ? input : REJECT)
    if (ast.checks.length === 1 && isIntCheck(ast.checks[0]!)) return (input) => (typeof input === "number" && Number.isSafeInteger(input) ? input : REJECT)
    return undefined
  }
  if (ast.checks !== undefined) return undefined
  switch (ast._tag) {
    case "String":
      return (input) => (typeof input === "string" ? input : REJECT)
    case "Boolean":
      return (input) => (typeof input === "boolean" ? input : REJECT)
    case "Null":
      return (input) => (input === null ? input : REJECT)
    case "Unknown":
      return (input) => input
    case "Literal": {
      const literal = ast.literal
      return (input) => (input === literal ? input : REJECT)
    }
    case "Objects":
      return objects(ast)
    case "Arrays":
      return arrays(ast)
    case "Union":
      return union(ast)
    default:
      return undefined
  }
}

/**
 * The schema's decoder as plain functions: the decoded value for an input it accepts, undefined for one the Schema
 * must decode itself. Undefined when the schema is not plain data.
 */
export const compilePlainDecoder = <S extends Schema.Top>(schema: S): ((input: unknown) => S["Type"] | undefined) | undefined => {
  const step = compile(schema.ast)
  if (step === undefined) return undefined
  return (input) => {
    const decoded = step(input)
    // Accepted node by node against the schema's own AST: the value is of its type.
    return decoded === REJECT ? undefined : decoded as S["Type"]
  }
}
