import {
  chatCompletionRequestSchema,
  openAiModel,
  openAiModelList,
  openAiSpeechSchema,
  OPENAI_VOICE_MAP,
} from "@chorus/contracts";
import type { ResponseObject } from "openapi3-ts/oas31";
import { json, limitedOk, type Paths } from "./operation.js";
import { headerRefs, parameterRef, rateLimitHeaders } from "./responses.js";
import { fromContract, schemaRef, type Schema } from "./schemas.js";
import { AUDIO_CONTENT } from "./speech.paths.js";

const string = { type: "string" } as const;
const count = { type: "integer", minimum: 0 } as const;

const usage: Schema = {
  type: "object",
  required: ["prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details"],
  properties: {
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    prompt_tokens_details: {
      type: "object",
      required: ["cached_tokens"],
      properties: { cached_tokens: { ...count, description: "The record's `cachedTokens`." } },
    },
  },
};

const finishReason: Schema = { type: ["string", "null"], enum: ["stop", "length", null] };
const completionId = {
  type: "string",
  pattern: "^chatcmpl-",
  description: "`chatcmpl-<request id>`: the same request under `GET /api/v2/status/{id}`.",
} as const;

/** The /v1 schemas of the OpenAPI document; the request bodies are the objects the gateway validates with. */
export const OPENAI_SCHEMAS: Record<string, Schema> = {
  ChatCompletionRequest: fromContract(chatCompletionRequestSchema),
  OpenAiSpeechRequest: fromContract(openAiSpeechSchema),
  ChatCompletion: {
    type: "object",
    required: ["id", "object", "created", "model", "choices", "usage"],
    properties: {
      id: completionId,
      object: { const: "chat.completion" },
      created: count,
      model: string,
      choices: {
        type: "array",
        items: {
          type: "object",
          required: ["index", "message", "finish_reason"],
          properties: {
            index: count,
            message: {
              type: "object",
              required: ["role", "content"],
              properties: { role: { const: "assistant" }, content: string },
            },
            finish_reason: finishReason,
          },
        },
      },
      usage,
    },
  },
  ChatCompletionChunk: {
    type: "object",
    description:
      "One `data:` event of a streamed completion; the stream ends with `data: [DONE]`. A failure after the first event is a `data:` event holding an `OpenAiError`.",
    required: ["id", "object", "created", "model", "choices"],
    properties: {
      id: completionId,
      object: { const: "chat.completion.chunk" },
      created: count,
      model: string,
      choices: {
        type: "array",
        items: {
          type: "object",
          properties: {
            index: count,
            delta: { type: "object", properties: { role: string, content: string } },
            finish_reason: finishReason,
          },
        },
      },
      usage: { oneOf: [usage, { type: "null" }] },
    },
  },
  OpenAiModel: {
    type: "object",
    required: ["id", "object", "created", "owned_by", "chorus_kind"],
    properties: {
      id: string,
      object: { const: "model" },
      created: count,
      owned_by: string,
      chorus_kind: {
        enum: ["chat", "speech"],
        description:
          "Extension: `chat` for a text model (`/v1/chat/completions`, `/v1/responses`), `speech` for `/v1/audio/speech`.",
      },
    },
  },
  OpenAiModelList: {
    type: "object",
    required: ["object", "data"],
    properties: { object: { const: "list" }, data: { type: "array", items: schemaRef("OpenAiModel") } },
  },
  OpenAiError: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "param", "code"],
        properties: {
          message: string,
          type: string,
          param: { type: ["string", "null"] },
          code: { type: ["string", "null"] },
        },
      },
    },
  },
};

/** /v1 errors: OpenAI's envelope, with the statuses the official SDKs turn into their typed errors. */
export function openAiErrors(...statuses: number[]): Record<string, ResponseObject> {
  const headers = (status: number) =>
    status === 429
      ? { ...rateLimitHeaders(), ...headerRefs("Retry-After") }
      : status === 503
        ? headerRefs("Retry-After")
        : undefined;
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: `OpenAI's error envelope (\`type\`, \`param\`, \`code\`); see docs/api.md, /v1.`,
        headers: headers(status),
        content: json(schemaRef("OpenAiError")),
      },
    ]),
  );
}

const voiceMap = Object.entries(OPENAI_VOICE_MAP)
  .map(([name, voice]) => `\`${name}\` → \`${voice}\``)
  .join(", ");

/** The OpenAI-compatible front door. */
export function openAiPaths(): Paths {
  const tags = ["OpenAI-compatible"];
  return {
    "/v1/models": {
      get: {
        operationId: "openAiListModels",
        summary: "List the models (OpenAI's shape)",
        tags,
        description:
          "The models the key's scopes let it use (`text:<model>` for a text model, `tts` for the speech model): the text models under their native ids, then the speech model, each with `chorus_kind`. Not rate limited.",
        responses: {
          "200": {
            description: "The models.",
            content: json(schemaRef("OpenAiModelList"), { models: openAiModelList() }),
          },
          ...openAiErrors(401, 503),
        },
      },
    },
    "/v1/models/{model}": {
      get: {
        operationId: "openAiRetrieveModel",
        summary: "Retrieve a model (OpenAI's shape)",
        tags,
        description:
          "One model of `GET /v1/models`. An unknown model, or one outside the key's scopes, is 404 `model_not_found` (param `model`). Not rate limited.",
        parameters: [{ name: "model", in: "path", required: true, schema: string, example: "Witch" }],
        responses: {
          "200": {
            description: "The model.",
            content: json(schemaRef("OpenAiModel"), { model: openAiModel("Witch", ["*"]) }),
          },
          ...openAiErrors(401, 404, 503),
        },
      },
    },
    "/v1/chat/completions": {
      post: {
        operationId: "openAiChatCompletion",
        summary: "Create a chat completion (OpenAI's shape)",
        tags,
        description:
          "The text job `POST /api/text/{model}` makes (same budget of the model, scopes, caps, queue and record), answered once it is final, or with `stream: true` as Server-Sent Events of `chat.completion.chunk`. Each field is mapped, ignored or refused (400): docs/api.md lists them. `temperature: 0` is greedy; a client's `seed` (or temperature 0) gives the same reply whatever else runs. The extra sampling fields (`top_k`, `min_p`, `repetition_penalty`, `typical_p`, penalties, `logit_bias`) and `response_format` (`json_object`, `json_schema`) are refused (400 naming the field) where the model's engine cannot honour them. Messages are bounded by the model's context, not by a count (the oldest turns are dropped first; 400 `context_length_exceeded` when even the system turn and the last message leave no room); an assistant message echoed whole (`refusal`, `annotations`, `audio: null`, `tool_calls`, null content) and tool results are taken. Without `max_tokens` the reply runs until the model stops, the context is full or the deployment's `MAX_COMPLETION_TOKENS` is reached. A client that disconnects cancels the job.",
        parameters: [parameterRef("IdempotencyKey"), parameterRef("PreferSubmit")],
        requestBody: {
          required: true,
          content: json(schemaRef("ChatCompletionRequest"), {
            chat: {
              model: "Witch",
              messages: [{ role: "user", content: "Hello! What are you brewing?" }],
              max_tokens: 100,
              seed: 7,
            },
            structured: {
              model: "default",
              messages: [{ role: "user", content: "Name a cat and its age, as JSON." }],
              max_tokens: 200,
              temperature: 0,
              response_format: {
                type: "json_schema",
                json_schema: {
                  name: "cat",
                  schema: {
                    type: "object",
                    properties: { name: { type: "string", maxLength: 20 }, age: { type: "integer", minimum: 0 } },
                    required: ["name", "age"],
                    additionalProperties: false,
                  },
                },
              },
            },
          }),
        },
        responses: {
          "200": limitedOk("The completion; with `stream: true`, its chunks.", {
            ...json(schemaRef("ChatCompletion")),
            "text/event-stream": { schema: schemaRef("ChatCompletionChunk") },
          }),
          ...openAiErrors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
        },
      },
    },
    "/v1/audio/speech": {
      post: {
        operationId: "openAiSpeech",
        summary: "Create speech (OpenAI's shape)",
        tags,
        description: `The speech job of \`POST /api/audio/full\` (its budget and the tts scope), answered with the whole audio. \`voice\`: a catalogue id or one of OpenAI's names: ${voiceMap}. \`pcm\`: raw 16-bit little-endian mono at the engine's rate (22050 Hz with eSpeak NG), named in the Content-Type. \`aac\`: 400.`,
        requestBody: {
          required: true,
          content: json(schemaRef("OpenAiSpeechRequest"), {
            speech: { model: "tts-1", input: "Mind the cauldron.", voice: "alloy", response_format: "mp3" },
          }),
        },
        responses: {
          "200": limitedOk("The audio bytes.", AUDIO_CONTENT),
          ...openAiErrors(400, 401, 403, 404, 413, 415, 429, 500, 503),
        },
      },
    },
  };
}
