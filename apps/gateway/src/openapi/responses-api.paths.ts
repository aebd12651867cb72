import { responseCreateSchema } from "@chorus/contracts";
import { json, limitedOk, type Paths } from "./operation.js";
import { openAiErrors } from "./openai.paths.js";
import { budgetHeaders, parameterRef } from "./responses.js";
import { fromContract, schemaRef, type Schema } from "./schemas.js";

const string = { type: "string" } as const;
const count = { type: "integer", minimum: 0 } as const;
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: "null" }] });

const outputMessage: Schema = {
  type: "object",
  required: ["type", "id", "status", "role", "content"],
  properties: {
    type: { const: "message" },
    id: { type: "string", pattern: "^msg_" },
    status: { enum: ["in_progress", "completed", "incomplete"] },
    role: { const: "assistant" },
    content: {
      type: "array",
      items: {
        type: "object",
        required: ["type", "text"],
        properties: { type: { const: "output_text" }, text: string, annotations: { type: "array" } },
      },
    },
  },
};

const functionCall: Schema = {
  type: "object",
  required: ["type", "id", "call_id", "name", "arguments", "status"],
  description:
    "A call the model made instead of replying (the request had function `tools`): the client runs it and sends its result back as a `function_call_output` input item with this `call_id`.",
  properties: {
    type: { const: "function_call" },
    id: { type: "string", pattern: "^fc_" },
    call_id: { type: "string", pattern: "^call_" },
    name: string,
    arguments: { type: "string", description: "The arguments object, as JSON text." },
    status: { enum: ["in_progress", "completed"] },
  },
};

/** The Responses API's schemas of the OpenAPI document. */
export const RESPONSES_SCHEMAS: Record<string, Schema> = {
  ResponseCreateRequest: fromContract(responseCreateSchema),
  Response: {
    type: "object",
    required: ["id", "object", "created_at", "status", "model", "output", "error", "incomplete_details"],
    properties: {
      id: {
        type: "string",
        pattern: "^resp_",
        description: "`resp_<request id>`: the same request under `GET /api/v2/status/{id}`.",
      },
      object: { const: "response" },
      created_at: count,
      status: {
        enum: ["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"],
        description:
          "From the record: `queued` while it waits for a worker, `in_progress` while generating, `incomplete` when the reply reached `max_output_tokens`, `failed` (see `error`), `cancelled`.",
      },
      model: string,
      output: {
        type: "array",
        items: { oneOf: [outputMessage, functionCall] },
        description: "One message, or the function calls the model made (then no message).",
      },
      tools: { type: "array", description: "The create call's `tools`, as sent (`[]` when read back later)." },
      tool_choice: { description: "The create call's `tool_choice` (`auto` with tools, else `none`)." },
      error: nullable({ type: "object", properties: { code: string, message: string } }),
      incomplete_details: nullable({ type: "object", properties: { reason: { const: "max_output_tokens" } } }),
      instructions: nullable(string),
      max_output_tokens: nullable(count),
      metadata: { type: "object" },
      background: { type: ["boolean", "null"] },
      usage: nullable({
        type: "object",
        properties: {
          input_tokens: count,
          input_tokens_details: { type: "object", properties: { cached_tokens: count } },
          output_tokens: count,
          output_tokens_details: { type: "object", properties: { reasoning_tokens: count } },
          total_tokens: count,
        },
      }),
    },
  },
  ResponseStreamEvent: {
    type: "object",
    required: ["type", "sequence_number"],
    description:
      "One Server-Sent Event (`event: <type>`): `response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`, `response.output_item.done`, then `response.completed` (or `response.incomplete`, `response.failed`); an `error` event when the stream cannot go on. A delta's `sequence_number` is 4 + the length of the text with it added, so `starting_after` resumes exactly after what a client has. A reply of function calls (known once final) is, after the first two, per call `response.output_item.added`, `response.function_call_arguments.delta` (the whole arguments), `response.function_call_arguments.done`, `response.output_item.done`, numbered from 2 in that order.",
    properties: { type: string, sequence_number: count },
  },
};

const responseId = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^resp_" },
  description: "The response's `id` (`resp_<request id>`).",
} as const;

/** POST /v1/responses, GET /v1/responses/{id}, POST /v1/responses/{id}/cancel. */
export function responsesApiPaths(): Paths {
  const tags = ["OpenAI-compatible"];
  const eventStream = { "text/event-stream": { schema: schemaRef("ResponseStreamEvent") } };
  return {
    "/v1/responses": {
      post: {
        operationId: "openAiCreateResponse",
        summary: "Create a response (OpenAI's Responses API)",
        tags,
        description:
          "The text job of a chat completion (the model's text budget, scopes, caps, queue and record), in the Responses API's shapes: answered once final; with `stream: true` as events; with `background: true` at once (`queued`), the job running without the client, which polls or streams `GET /v1/responses/{id}`. Function `tools` (the flat shape) are answered with `function_call` output items (forced calls validate against their parameters); the loop's next turn sends them back with `function_call_output` items. A client that disconnects from a response that is not in the background cancels it. docs/openai.md lists every field.",
        parameters: [parameterRef("IdempotencyKey"), parameterRef("PreferSubmit")],
        requestBody: {
          required: true,
          content: json(schemaRef("ResponseCreateRequest"), {
            background: { model: "Witch", input: "What are you brewing?", background: true, max_output_tokens: 200 },
          }),
        },
        responses: {
          "200": limitedOk(
            "The response; with `stream: true`, its events.",
            { ...json(schemaRef("Response")), ...eventStream },
            budgetHeaders(),
          ),
          ...openAiErrors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503, 504),
        },
      },
    },
    "/v1/responses/{id}": {
      get: {
        operationId: "openAiRetrieveResponse",
        summary: "Retrieve a response, or stream its events (`stream=true`, `starting_after`)",
        tags,
        description:
          "The key's own response as its record stands (another key's is 404). With `?stream=true`: its events from the start, or after `starting_after`, then live until it ends (it holds one of the key's open streams meanwhile). Read back later, the create call's settings (`instructions`, `temperature`, `tools`, …) are null or empty: the record keeps the reply, not them. Counts against the status budget.",
        parameters: [
          responseId,
          { name: "stream", in: "query", schema: { type: "boolean" } },
          { name: "starting_after", in: "query", schema: count },
        ],
        responses: {
          "200": limitedOk("The response, or its events.", { ...json(schemaRef("Response")), ...eventStream }),
          ...openAiErrors(400, 401, 404, 429, 503),
        },
      },
    },
    "/v1/responses/{id}/cancel": {
      post: {
        operationId: "openAiCancelResponse",
        summary: "Cancel a response",
        tags,
        description:
          "Stops the key's own response if it is still running (as `DELETE /api/v2/status/{id}`) and answers it, `cancelled`; a finished one is answered as it is. Counts against the status budget.",
        parameters: [responseId],
        responses: {
          "200": limitedOk("The response.", json(schemaRef("Response"))),
          ...openAiErrors(401, 404, 429, 503),
        },
      },
    },
  };
}
