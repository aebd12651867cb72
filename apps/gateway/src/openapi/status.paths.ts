import { CANCELLED_ERROR } from "@chorus/contracts";
import type { MediaTypeObject, ParameterObject } from "openapi3-ts/oas31";
import { json, limitedOk, type Operation, type Paths } from "./operation.js";
import { errors, headerRefs, parameterRef } from "./responses.js";
import { schemaRef } from "./schemas.js";

export const RECORD_EXAMPLES = {
  queued: { status: "processing", progress: 0, queuePosition: 2, estimatedTimeRemaining: 5.8 },
  generating: { status: "processing", progress: 0.42, estimatedTimeRemaining: 1.3, partialReply: "Grey waves fold" },
  completed: {
    status: "completed",
    reply: "Grey waves fold and break…",
    tokens: 17,
    promptTokens: 42,
    cachedTokens: 0,
    processingTime: 1.84,
    droppedMessages: 0,
    finishReason: "stop",
    maxTokens: 150,
  },
  failed: { status: "error", error: "generation failed: generation exceeded the time limit of 120 s" },
};

const eventStreamExample = [RECORD_EXAMPLES.queued, RECORD_EXAMPLES.generating, RECORD_EXAMPLES.completed]
  .map((record, i) => `event: status\nid: ${i * 5 + 1}\ndata: ${JSON.stringify(record)}\n\n`)
  .join("");

const eventStream: MediaTypeObject = {
  schema: {
    type: "string",
    description:
      "With `Accept: text/event-stream`: Server-Sent Events. Each event is `event: status`, `id: <revision>`, `data: <the status record as the JSON answer has it>`: whole snapshots, never deltas. The first comes at once, then one on every change (and, while queued, when the position or ETA changes); the final record (`completed` or `error`) is the last event, then the stream ends. `: keep-alive` comments every 15 s of silence. Counts once against the status budget; a 404 is a JSON error, not a stream.",
  },
  example: eventStreamExample,
};

function getStatus(operationId: string): Operation {
  return {
    operationId,
    summary: "Read (or stream, or wait for) a request's status",
    tags: ["Status"],
    description:
      "The status record. With `Prefer: wait=N`, answers as soon as the record is final or after N seconds (one poll however long). With `Accept: text/event-stream`, streams the record as it changes. A stream or wait on a request still processing holds one of the key's open streams (`MAX_STREAMS_PER_KEY`, 50 by default, or its own `streams` limit; 429 beyond) and one of the gateway's (503 beyond). `queuePosition` counts the requests that will start before this one: keys take turns, so it may grow when another key's request arrives.",
    parameters: [parameterRef("Prefer"), parameterRef("LastEventId")],
    responses: {
      "200": limitedOk(
        "The record as it stands (or the stream of its snapshots).",
        { ...json(schemaRef("StatusRecord"), RECORD_EXAMPLES), "text/event-stream": eventStream },
        {
          ...headerRefs("Preference-Applied"),
          "Cache-Control": { description: "`no-store`", schema: { type: "string" } },
        },
      ),
      ...errors(401, 404, 429, 500, 503),
    },
  };
}

function cancel(operationId: string): Operation {
  return {
    operationId,
    summary: "Cancel a processing request",
    tags: ["Status"],
    description:
      "Stops a queued or running generation at once (owner only; counts against the status budget). A request that has already finished is 409.",
    responses: {
      "200": limitedOk(
        "The record, now cancelled.",
        json(schemaRef("StatusRecord"), {
          cancelled: { status: "error", error: CANCELLED_ERROR, finishReason: "cancelled" },
        }),
      ),
      ...errors(401, 404, 409, 429, 500, 503),
    },
  };
}

export function idParameter(name: string, description: string): ParameterObject {
  return {
    name,
    in: "path",
    required: true,
    description,
    schema: { type: "string" },
    example: "0f8e2c1a-3b7d-4e5f-9a6b-1c2d3e4f5a6b",
  };
}

/** The contract's status path and its twin: the same operations, their own operation ids. */
export function statusPaths(): Paths {
  return {
    "/api/v2/status/{id}": {
      parameters: [idParameter("id", "The `id` of a submit response.")],
      get: getStatus("getStatus"),
      delete: cancel("cancelRequest"),
    },
    "/api/status/{task_id}": {
      parameters: [idParameter("task_id", "The `id` of a submit response (the contract's twin path).")],
      get: getStatus("getStatusByTaskId"),
      delete: cancel("cancelRequestByTaskId"),
    },
  };
}
