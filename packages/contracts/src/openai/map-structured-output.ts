import { ApiError } from "../errors.js";
import { checkResponseSchema, type ResponseFormat } from "../text/response-format.js";

/** OpenAI's `response_format`: text, any JSON object, or JSON that a schema validates. */
export const chatResponseFormatSchema = {
  oneOf: [
    { type: "null" },
    {
      type: "object",
      additionalProperties: false,
      required: ["type"],
      properties: { type: { type: "string", enum: ["text", "json_object"] } },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["type", "json_schema"],
      properties: {
        type: { const: "json_schema" },
        json_schema: {
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: {
            name: { type: "string", pattern: "^[a-zA-Z0-9_-]{1,64}$" },
            description: { type: "string" },
            schema: { type: "object" },
            strict: { type: ["boolean", "null"] },
          },
        },
      },
    },
  ],
} as const;

export type ChatResponseFormat =
  | null
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

/** The job's response format (none for text); a schema the engines cannot honour is a 400 naming its part. */
export function mapResponseFormat(format: ChatResponseFormat | undefined): ResponseFormat | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, strict } = format.json_schema;
  // A json_schema without a schema asks for JSON of any form: an object, as OpenAI answers it.
  if (!schema) return { type: "json_object" };
  checkResponseSchema(schema, "response_format.json_schema.schema");
  return { type: "json_schema", name, schema, ...(strict != null ? { strict } : {}) };
}

/** A response_format that matches none of its forms, said as a whole (the schema would name one branch). */
export function refuseInvalidResponseFormat(body: unknown): void {
  const format = (body as { response_format?: unknown } | null)?.response_format;
  if (format === undefined || format === null) return;
  const type = (format as { type?: unknown }).type;
  if (!["text", "json_object", "json_schema"].includes(type as string))
    throw ApiError.invalidParameter(
      "response_format.type",
      "string",
      "response_format.type must be 'text', 'json_object' or 'json_schema'",
    );
}
