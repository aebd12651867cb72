import {
  characterModelRequestSchema,
  defaultModelRequestSchema,
  errorEnvelopeSchema,
  MODEL_IDS,
  speechRequestSchema,
  statusRecordSchema,
  VOICES,
} from "@chorus/contracts";
import type { ReferenceObject, SchemaObject } from "openapi3-ts/oas31";

export type Schema = SchemaObject;
export type SchemaRef = ReferenceObject;

/** A reference to one of SCHEMAS (a string: SCHEMAS' own entries refer to each other). */
export function schemaRef(name: string): SchemaRef {
  return { $ref: `#/components/schemas/${name}` };
}

/** `{ id, ...record }`: a record as the list, batch and waited submit answers carry it. */
function withId(record: SchemaRef, more: Record<string, Schema> = {}, required: string[] = ["id"]): Schema {
  return {
    allOf: [
      { type: "object", required, properties: { id: { type: "string", description: "The request id." }, ...more } },
      record,
    ],
  };
}

const voice: Schema = {
  type: "object",
  required: ["id", "language", "gender", "description"],
  properties: {
    id: { type: "string", description: "What a client sends as `voice`." },
    language: { type: "string", description: "BCP 47 tag of the language and accent." },
    gender: { type: "string", enum: ["female", "male"] },
    description: { type: "string" },
    character: {
      type: "string",
      enum: MODEL_IDS.filter((id) => id !== "default"),
      description: "On a character's own voice: the character model it speaks for.",
    },
  },
};

/**
 * One of the contract's schemas, the very object (never a copy). The cast only because they are
 * `as const` literals with readonly arrays, which the OpenAPI types do not accept.
 */
export function fromContract(schema: object): Schema {
  return schema as Schema;
}

/** The document's schemas: the request bodies are the objects the gateway's validators are compiled from. */
export const SCHEMAS = {
  DefaultModelGenerationRequest: fromContract(defaultModelRequestSchema),
  CharacterModelGenerationRequest: fromContract(characterModelRequestSchema),
  SpeechRequest: fromContract(speechRequestSchema),
  StatusRecord: fromContract(statusRecordSchema),
  ErrorEnvelope: fromContract(errorEnvelopeSchema),
  SubmitResponse: {
    type: "object",
    required: ["id", "tokens"],
    properties: {
      id: { type: "string", description: "The request id, for the status endpoint." },
      tokens: { const: -1, description: "-1: the request is being processed." },
    },
  },
  FinishedSubmitResponse: withId(schemaRef("StatusRecord")),
  WebhookDelivery: withId(
    schemaRef("StatusRecord"),
    {
      keyId: { type: "string", description: "The id of the API key that sent the request: whose secret signed this." },
    },
    ["id", "keyId"],
  ),
  Voice: voice,
  VoiceList: {
    type: "object",
    required: ["voices"],
    properties: { voices: { type: "array", items: schemaRef("Voice") } },
  },
  RequestListItem: withId(
    schemaRef("StatusRecord"),
    {
      model: { type: "string", enum: [...MODEL_IDS] },
      createdAt: { type: "string", format: "date-time", description: "When the gateway accepted it." },
    },
    ["id", "model", "createdAt"],
  ),
  RequestList: {
    type: "object",
    required: ["data", "nextCursor"],
    properties: {
      data: { type: "array", items: schemaRef("RequestListItem"), description: "Newest first." },
      nextCursor: {
        type: ["string", "null"],
        description: "Pass as `cursor` for the next page; null on the last page.",
      },
    },
  },
  BatchStatusItem: {
    anyOf: [
      withId(schemaRef("StatusRecord")),
      {
        type: "object",
        required: ["id", "error"],
        properties: {
          id: { type: "string" },
          error: {
            type: "object",
            required: ["code", "message"],
            properties: { code: { const: "NOT_FOUND" }, message: { type: "string" } },
          },
        },
        description: "An id that is unknown, expired or another key's.",
      },
    ],
  },
  BatchStatus: {
    type: "object",
    required: ["data"],
    properties: {
      data: {
        type: "array",
        items: schemaRef("BatchStatusItem"),
        description: "In the order asked, duplicates removed.",
      },
    },
  },
  Readiness: {
    type: "object",
    required: ["status", "redis"],
    properties: {
      status: { type: "string", enum: ["ready", "unavailable"] },
      redis: {
        type: "string",
        description:
          "The first connection's state that is not `ready` (ioredis: `connecting`, `reconnecting`, `end`, …), else `ready`.",
      },
    },
  },
} satisfies Record<string, Schema>;

/** The voice catalogue as GET /api/voices answers it. */
export const VOICE_LIST_EXAMPLE = { voices: VOICES };
