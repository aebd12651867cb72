import { REQUEST_LIMITS as L } from "../limits.js";

/** The roles of Chat Completions' messages (`function` is its deprecated tool result). */
export const CHAT_ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;

/**
 * A content part: text, or (assistant only) a refusal. Parts of other types (images, audio, files)
 * are refused before the schema, saying why (map-chat-messages.ts).
 */
const contentPart = {
  type: "object",
  additionalProperties: false,
  required: ["type"],
  properties: {
    type: { type: "string", enum: ["text", "refusal"] },
    text: { type: "string" },
    refusal: { type: "string" },
  },
} as const;

/**
 * One message, any role, every field OpenAI defines on one. Which role may carry which field, and
 * what each must hold, is checked in map-chat-messages.ts (ajv's errors for a union of six shapes
 * would name the wrong branch). No length bound here: what does not fit the model's context is
 * trimmed or refused by the worker, and the body's size bounds all (REQUEST_LIMITS.maxBodyBytes).
 */
export const chatMessageSchema = {
  type: "object",
  additionalProperties: false,
  required: ["role"],
  properties: {
    role: { type: "string", enum: CHAT_ROLES },
    content: {
      anyOf: [{ type: "string" }, { type: "array", maxItems: 100, items: contentPart }, { type: "null" }],
    },
    name: { type: "string", maxLength: L.maxIdChars },
    refusal: { type: ["string", "null"] },
    annotations: { type: ["array", "null"] },
    audio: { type: ["object", "null"] },
    tool_calls: { type: ["array", "null"], items: { type: "object" } },
    function_call: { type: ["object", "null"] },
    tool_call_id: { type: "string", maxLength: L.maxIdChars },
  },
} as const;
