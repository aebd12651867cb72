import { ApiError } from "../errors.js";
import { unsupportedSchemaPart } from "./json-schema-support.js";

/**
 * Extension: the reply's form. `json_object`: any JSON object; `json_schema`: JSON that validates
 * against `schema`. The engine constrains sampling to it (llama.cpp: a grammar made from the schema).
 */
export type ResponseFormat =
  { type: "json_object" } | { type: "json_schema"; schema: Record<string, unknown>; name?: string; strict?: boolean };
export type ResponseFormatType = ResponseFormat["type"];

/** Bound on a schema's size (characters of its JSON): its grammar is built for every job. */
export const MAX_RESPONSE_SCHEMA_CHARS = 16_000;

/** The native body's `responseFormat` (the same shape as ResponseFormat). */
export const responseFormatSchema = {
  oneOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["type"],
      properties: { type: { const: "json_object" } },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["type", "schema"],
      properties: {
        type: { const: "json_schema" },
        schema: { type: "object" },
        name: { type: "string", minLength: 1, maxLength: 64 },
        strict: { type: "boolean" },
      },
    },
  ],
  description:
    "Extension: the reply is JSON: any object (`json_object`) or one that validates against `schema` (`json_schema`); sampling is constrained to it. See docs/api.md, Structured output.",
} as const;

/**
 * Refuses a schema the engines cannot turn into constrained sampling, naming the part (400); `param`
 * is where the schema sits in the body.
 */
export function checkResponseSchema(schema: Record<string, unknown>, param: string): void {
  if (JSON.stringify(schema).length > MAX_RESPONSE_SCHEMA_CHARS)
    throw ApiError.invalidParameter(
      param,
      "object",
      `the schema may hold at most ${MAX_RESPONSE_SCHEMA_CHARS} characters of JSON`,
    );
  const part = unsupportedSchemaPart(schema);
  if (part) throw ApiError.invalidParameter(`${param}${part.path}`, "object", part.why);
}
