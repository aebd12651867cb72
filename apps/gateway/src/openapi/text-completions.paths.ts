import { TEXT_COMPLETION_DEFAULT_MAX_TOKENS, textCompletionRequestSchema } from "@chorus/contracts";
import { json, limitedOk, type Paths } from "./operation.js";
import { openAiErrors, usage } from "./openai.paths.js";
import { parameterRef } from "./responses.js";
import { fromContract, schemaRef, type Schema } from "./schemas.js";

const count = { type: "integer", minimum: 0 } as const;

/** OpenAI's legacy `text_completion` object: the whole answer, or one streamed chunk. */
const textCompletion: Schema = {
  type: "object",
  required: ["id", "object", "created", "model", "choices"],
  properties: {
    id: {
      type: "string",
      pattern: "^cmpl-",
      description: "`cmpl-<request id>`: the same request under `GET /api/v2/status/{id}`.",
    },
    object: { const: "text_completion" },
    created: count,
    model: { type: "string" },
    choices: {
      type: "array",
      description: "One choice; empty in the streamed usage chunk (`stream_options.include_usage`).",
      items: {
        type: "object",
        required: ["index", "text", "finish_reason", "logprobs"],
        properties: {
          index: count,
          text: { type: "string", description: "The continuation (streamed: a piece of it)." },
          finish_reason: { type: ["string", "null"], enum: ["stop", "length", null] },
          logprobs: { type: "null" },
        },
      },
    },
    usage: {
      description: "Whole: always. Streamed: null, but in the usage chunk with `stream_options.include_usage`.",
      oneOf: [usage, { type: "null" }],
    },
  },
};

/** The text completion schemas of the OpenAPI document. */
export const TEXT_COMPLETION_SCHEMAS: Record<string, Schema> = {
  TextCompletionRequest: fromContract(textCompletionRequestSchema),
  TextCompletion: textCompletion,
};

/** POST /v1/completions. */
export function textCompletionPaths(): Paths {
  return {
    "/v1/completions": {
      post: {
        operationId: "openAiTextCompletion",
        summary: "Create a text completion (OpenAI's legacy shape)",
        tags: ["OpenAI-compatible"],
        description: `The text job of \`POST /v1/chat/completions\` (same budget of the model, scopes, caps, queue and record), with a raw prompt: the model continues \`prompt\` as it is, without the chat template, persona or turn markers. \`prompt\`: a string, or a list of one string. \`max_tokens\` defaults to ${TEXT_COMPLETION_DEFAULT_MAX_TOKENS}, as OpenAI's does, up to \`MAX_COMPLETION_TOKENS\`; a prompt that leaves no room for it is 400 \`context_length_exceeded\`. \`temperature\`, \`top_p\`, \`seed\`, \`stop\` and the extra sampling fields as on chat. \`n\` and \`best_of\` 1, \`echo\` false, \`logprobs\` null only; \`suffix\` is refused (400 naming the field). With \`stream: true\`, Server-Sent Events of \`text_completion\` chunks, then \`data: [DONE]\`. Engines: llama-server, and OpenAI-compatible upstreams (the prompt goes to the upstream's own \`/v1/completions\`). Where the model's engine cannot read a raw prompt (an upstream declared \`completions: false\`): 400 naming \`prompt\`; an upstream that answers 404 there: 400 saying so, not retried.`,
        parameters: [parameterRef("IdempotencyKey"), parameterRef("PreferSubmit")],
        requestBody: {
          required: true,
          content: json(schemaRef("TextCompletionRequest"), {
            completion: { model: "default", prompt: "Once upon a time", max_tokens: 60, seed: 7, stop: ["\n\n"] },
          }),
        },
        responses: {
          "200": limitedOk("The completion; with `stream: true`, its chunks.", {
            ...json(schemaRef("TextCompletion")),
            "text/event-stream": { schema: schemaRef("TextCompletion") },
          }),
          ...openAiErrors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
        },
      },
    },
  };
}
