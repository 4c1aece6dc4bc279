/** The JSON Schema of `orchestrator.yaml`, for editors; generated from the Schema, checked in under schema/. */
import * as Schema from "effect/Schema"
import { OrchestratorConfig } from "./schema.ts"

export const configJsonSchema = (): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(OrchestratorConfig, { onExcessProperty: "error" })
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {})
  }
}

export const renderConfigJsonSchema = (): string => `${JSON.stringify(configJsonSchema(), null, 2)}\n`
