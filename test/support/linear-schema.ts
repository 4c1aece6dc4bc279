/**
 * Linear's GraphQL schema, rebuilt offline from what `@linear/sdk` ships. No version of the package on npm
 * carries the schema as SDL or introspection; what it does carry is graphql-codegen's `typescript` output
 * (`dist/index-*.d.mts`, region `src/_generated_documents.d.ts`), a one-to-one image of the schema: every
 * object (`__typename`), interface (`A & B & {…}`), input (`InputMaybe`), enum, union and scalar, and every
 * field's arguments (`<Type><Field>Args`). This module reads that image back into SDL. What codegen leaves out
 * (descriptions, directives, argument defaults) does not change what validates, except that an argument
 * codegen marks optional but not nullable (a non-null one with a default) becomes nullable here.
 * test/plugins/tracker/linear-schema.test.ts proves the result: all of the SDK's own documents validate against it.
 */
import { buildSchema, type GraphQLSchema } from "graphql"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const SDK_DIST = "node_modules/@linear/sdk/dist"
const REGION = "//#region src/_generated_documents.d.ts"

export const linearSdkVersion = (): string => (JSON.parse(readFileSync("node_modules/@linear/sdk/package.json", "utf8")) as { version: string }).version

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly type: string
}
type Declaration =
  | { readonly kind: "struct"; readonly name: string; readonly parents: ReadonlyArray<string>; readonly fields: ReadonlyArray<Field> }
  | { readonly kind: "union"; readonly name: string; readonly members: ReadonlyArray<string> }
  | { readonly kind: "enum"; readonly name: string; readonly values: ReadonlyArray<string> }

/** The generated declarations, without comments. */
const declarations = (source: string): Map<string, Declaration> => {
  const start = source.indexOf(REGION)
  const end = source.indexOf("//#region", start + REGION.length)
  const lines = source.slice(start, end).replace(/\/\*\*[\s\S]*?\*\//g, "").split("\n")
  const found = new Map<string, Declaration>()
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const enumStart = /^declare enum (\w+) \{$/.exec(line)
    if (enumStart) {
      const values: Array<string> = []
      for (i++; lines[i] !== "}"; i++) {
        const value = /= "([^"]*)",?$/.exec(lines[i]!)
        if (value) values.push(value[1]!)
      }
      found.set(enumStart[1]!, { kind: "enum", name: enumStart[1]!, values })
      continue
    }
    const struct = /^type (\w+) = ((?:\w+ & )*)\{$/.exec(line)
    if (struct) {
      const fields: Array<Field> = []
      for (i++; lines[i] !== "};"; i++) {
        const field = /^ {2}(\w+)(\??): (.+);$/.exec(lines[i]!)
        if (field) fields.push({ name: field[1]!, optional: field[2] === "?", type: field[3]! })
      }
      const parents = struct[2]!.split(" & ").filter(Boolean)
      found.set(struct[1]!, { kind: "struct", name: struct[1]!, parents, fields })
      continue
    }
    const union = /^type (\w+) = (\w+(?: \| \w+)+);$/.exec(line)
    if (union) found.set(union[1]!, { kind: "union", name: union[1]!, members: union[2]!.split(" | ") })
  }
  return found
}

/** A codegen type expression as a GraphQL type reference, and the named type it ends in. */
const graphqlType = (expression: string): { readonly ref: string; readonly named: string } => {
  const maybe = /^(?:Input)?Maybe<(.+)>$/.exec(expression)
  if (maybe) {
    const inner = graphqlType(maybe[1]!)
    return { ref: inner.ref.replace(/!$/, ""), named: inner.named }
  }
  const list = /^Array<(.+)>$/.exec(expression)
  if (list) {
    const inner = graphqlType(list[1]!)
    return { ref: `[${inner.ref}]!`, named: inner.named }
  }
  const scalar = /^Scalars\["(\w+)"\]$/.exec(expression)
  const named = scalar ? scalar[1]! : expression
  if (!/^\w+$/.test(named)) throw new Error(`linear-schema: cannot read the type expression ${expression}`)
  return { ref: `${named}!`, named }
}

const BUILT_IN_SCALARS = new Set(["ID", "String", "Boolean", "Int", "Float"])

/** The SDL of Linear's schema as the installed @linear/sdk describes it. */
export const linearSchemaSdl = (): string => {
  const file = readdirSync(SDK_DIST).find((name) => name.endsWith(".d.mts") && readFileSync(join(SDK_DIST, name), "utf8").includes(REGION))
  if (file === undefined) throw new Error(`linear-schema: no ${REGION} in ${SDK_DIST}`)
  const all = declarations(readFileSync(join(SDK_DIST, file), "utf8"))
  // Codegen names arguments `<Type><Field>Args` in its own casing (`attachmentLinkGitHubPR` → `…GitHubPrArgs`).
  const argsByName = new Map([...all.values()].filter((d) => d.name.endsWith("Args")).map((d) => [d.name.toLowerCase(), d]))
  const unusedArgs = new Set(argsByName.keys())
  const argsOf = (type: string, field: string) => {
    const key = `${type}${field}args`.toLowerCase()
    unusedArgs.delete(key)
    return argsByName.get(key)
  }
  const isObject = (d: Declaration | undefined) => d?.kind === "struct" && d.fields.some((f) => f.name === "__typename")
  const interfaces = new Set([...all.values()].flatMap((d) => (d.kind === "struct" ? d.parents : [])))
  const implementers = new Map<string, Array<string>>()
  for (const d of all.values()) {
    if (d.kind === "struct") { for (const parent of d.parents) implementers.set(parent, [...(implementers.get(parent) ?? []), d.name]) }
  }

  // Only what the root types reach is schema; the rest of the region is the SDK's operation and fragment types.
  const kinds = new Map<string, "type" | "interface" | "input" | "enum" | "union" | "scalar">()
  const queue: Array<[string, "output" | "input"]> = [["Query", "output"], ["Mutation", "output"]]
  while (queue.length > 0) {
    const [name, side] = queue.pop()!
    if (kinds.has(name)) continue
    const d = all.get(name)
    if (d === undefined) {
      kinds.set(name, "scalar")
      continue
    }
    if (d.kind === "enum") {
      kinds.set(name, "enum")
      continue
    }
    if (d.kind === "union") {
      kinds.set(name, "union")
      for (const member of d.members) queue.push([member, "output"])
      continue
    }
    if (side === "input") {
      kinds.set(name, "input")
      for (const field of d.fields) queue.push([graphqlType(field.type).named, "input"])
      continue
    }
    kinds.set(name, isObject(d) ? "type" : "interface")
    for (const parent of d.parents) queue.push([parent, "output"])
    for (const implementer of interfaces.has(name) ? implementers.get(name) ?? [] : []) queue.push([implementer, "output"])
    for (const field of d.fields) {
      if (field.name === "__typename") continue
      queue.push([graphqlType(field.type).named, "output"])
      const args = argsOf(name, field.name)
      if (args?.kind === "struct") { for (const arg of args.fields) queue.push([graphqlType(arg.type).named, "input"]) }
    }
  }

  const reference = (field: Field, isArgument: boolean) => {
    const { ref } = graphqlType(field.type)
    return isArgument && field.optional ? ref.replace(/!$/, "") : ref
  }
  const blocks: Array<string> = ["schema {\n  query: Query\n  mutation: Mutation\n}"]
  for (const [name, kind] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
    const d = all.get(name)
    if (kind === "scalar") {
      if (!BUILT_IN_SCALARS.has(name)) blocks.push(`scalar ${name}`)
    } else if (d?.kind === "enum") {
      blocks.push(`enum ${name} {\n${d.values.map((v) => `  ${v}`).join("\n")}\n}`)
    } else if (d?.kind === "union") {
      blocks.push(`union ${name} = ${d.members.join(" | ")}`)
    } else if (d?.kind === "struct") {
      const fields = d.fields.filter((f) => f.name !== "__typename").map((field) => {
        const args = kind === "input" ? undefined : argsOf(name, field.name)
        const argList = args?.kind === "struct" && args.fields.length > 0
          ? `(${args.fields.map((arg) => `${arg.name}: ${reference(arg, true)}`).join(", ")})`
          : ""
        return `  ${field.name}${argList}: ${reference(field, false)}`
      })
      const implementsClause = d.parents.length > 0 ? ` implements ${d.parents.join(" & ")}` : ""
      blocks.push(`${kind} ${name}${kind === "input" ? "" : implementsClause} {\n${fields.join("\n")}\n}`)
    }
  }
  // Arguments that no field took would mean a misread name: the schema would silently lack them.
  const schemaTypes = new Set([...kinds.keys()].map((name) => name.toLowerCase()))
  const lost = [...unusedArgs].filter((key) =>
    !schemaTypes.has(key) && [...kinds].some(([name, kind]) => (kind === "type" || kind === "interface") && key.startsWith(name.toLowerCase()))
  )
  if (lost.length > 0) throw new Error(`linear-schema: arguments without a field: ${lost.join(", ")}`)
  return `${blocks.join("\n\n")}\n`
}

let built: GraphQLSchema | undefined
/** Linear's schema, built once per process. */
export const linearSchema = (): GraphQLSchema => (built ??= buildSchema(linearSchemaSdl()))
