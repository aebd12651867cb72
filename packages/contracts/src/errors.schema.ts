import { ERROR_CODES } from "./errors.js";

/** JSON Schema of ErrorEnvelope, the body of every 4xx/5xx answer. Documentation only, like the record's. */
export const errorEnvelopeSchema = {
  type: "object",
  required: ["error", "status", "timestamp"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES), description: "Stable: clients may branch on it." },
        message: { type: "string", description: "For people; may change between versions." },
        details: {
          type: "object",
          description:
            "On INVALID_PARAMETER: the first problem (`parameter`, `expected_type`) and every problem found (`problems`, at most 20).",
          properties: {
            parameter: { type: "string", description: "Path of the parameter, e.g. `messages[2].content`." },
            expected_type: { type: "string" },
            errorId: { type: "string", description: "On INTERNAL_ERROR: the reference also written to the logs." },
            problems: {
              type: "array",
              maxItems: 20,
              items: {
                type: "object",
                required: ["parameter", "expected_type", "message"],
                properties: {
                  parameter: { type: "string" },
                  expected_type: { type: "string" },
                  message: { type: "string" },
                },
              },
            },
          },
        },
      },
    },
    status: { const: "error" },
    timestamp: { type: "string", format: "date-time" },
  },
} as const;
