import { BATCH_ENDPOINTS, BATCH_LIMITS, FILE_LIMITS } from "@chorus/contracts";
import { json, limitedOk, type Paths } from "./operation.js";
import { openAiErrors } from "./openai.paths.js";
import { schemaRef, type Schema } from "./schemas.js";

const string = { type: "string" } as const;
const count = { type: "integer", minimum: 0 } as const;
const time: Schema = {
  type: ["integer", "null"],
  minimum: 0,
  description: "Unix seconds; null until the batch gets there.",
};
const STATUSES = [
  "validating",
  "failed",
  "in_progress",
  "finalizing",
  "completed",
  "expired",
  "cancelling",
  "cancelled",
];
const { maxPairs, maxKeyChars, maxValueChars } = BATCH_LIMITS.metadata;
const metadata: Schema = {
  type: ["object", "null"],
  maxProperties: maxPairs,
  additionalProperties: { type: "string", maxLength: maxValueChars },
  description: `At most ${maxPairs} pairs; keys up to ${maxKeyChars} characters, values up to ${maxValueChars}.`,
};

const batchObject: Schema = {
  type: "object",
  required: [
    "id",
    "object",
    "endpoint",
    "input_file_id",
    "completion_window",
    "status",
    "created_at",
    "request_counts",
  ],
  properties: {
    id: { ...string, example: "batch_3f0c9a1b2c3d4e5f60718293" },
    object: { type: "string", enum: ["batch"] },
    endpoint: { type: "string", enum: [...BATCH_ENDPOINTS] },
    errors: { type: ["object", "null"] },
    input_file_id: string,
    completion_window: { type: "string", enum: ["24h"] },
    status: { type: "string", enum: STATUSES },
    output_file_id: { type: ["string", "null"] },
    error_file_id: { type: ["string", "null"] },
    created_at: { type: "integer", minimum: 0 },
    in_progress_at: time,
    expires_at: { type: "integer", minimum: 0 },
    finalizing_at: time,
    completed_at: time,
    failed_at: time,
    expired_at: time,
    cancelling_at: time,
    cancelled_at: time,
    request_counts: {
      type: "object",
      required: ["total", "completed", "failed"],
      properties: { total: count, completed: count, failed: count },
    },
    metadata,
  },
};

export const BATCHES_SCHEMAS: Record<string, Schema> = {
  OpenAiBatch: batchObject,
  OpenAiBatchList: {
    type: "object",
    required: ["object", "data", "first_id", "last_id", "has_more"],
    properties: {
      object: { type: "string", enum: ["list"] },
      data: { type: "array", items: schemaRef("OpenAiBatch") },
      first_id: { type: ["string", "null"] },
      last_id: { type: ["string", "null"] },
      has_more: { type: "boolean" },
    },
  },
};

const batchId = { name: "id", in: "path", required: true, schema: string } as const;

/** OpenAI's Batch API (docs/batches.md). */
export function batchesApiPaths(): Paths {
  const tags = ["OpenAI-compatible"];
  const budget = "Each call spends the key's status budget.";
  return {
    "/v1/batches": {
      post: {
        operationId: "openAiCreateBatch",
        summary: "Create a batch (OpenAI's Batch API)",
        tags,
        description: `Runs every line of a file of purpose \`batch\` (at most ${FILE_LIMITS.maxLines} lines) as a request of the key to \`endpoint\`, within \`completion_window\` (only \`24h\`). Every line is checked now: \`custom_id\` (unique), \`method\` POST, \`url\` the endpoint, a \`body\` the endpoint accepts (no \`stream\`); any bad line is a 400 naming the first bad line and field (\`param\`) and listing up to ${BATCH_LIMITS.maxReportedErrors} in \`error.errors\` (\`[{line, param, message}]\`). A model the key may not use fails that line in the error file, not the batch. A key may have MAX_BATCHES_PER_KEY batches in progress (its \`batches\` limit overrides it): 429 beyond. ${budget}`,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["input_file_id", "endpoint", "completion_window"],
                properties: {
                  input_file_id: string,
                  endpoint: { type: "string", enum: [...BATCH_ENDPOINTS] },
                  completion_window: { type: "string", enum: ["24h"] },
                  metadata,
                },
              },
            },
          },
        },
        responses: {
          "200": limitedOk("The batch, `in_progress`.", json(schemaRef("OpenAiBatch"))),
          ...openAiErrors(400, 401, 404, 415, 429, 503),
        },
      },
      get: {
        operationId: "openAiListBatches",
        summary: "List the key's batches",
        tags,
        description: `The key's batches, newest first, a page of \`limit\` (${BATCH_LIMITS.list.min} to ${BATCH_LIMITS.list.max}, default ${BATCH_LIMITS.list.default}) after the batch \`after\`. ${budget}`,
        parameters: [
          {
            name: "limit",
            in: "query",
            schema: { type: "integer", minimum: BATCH_LIMITS.list.min, maximum: BATCH_LIMITS.list.max },
          },
          { name: "after", in: "query", schema: string },
        ],
        responses: {
          "200": limitedOk("A page of batches.", json(schemaRef("OpenAiBatchList"))),
          ...openAiErrors(400, 401, 429, 503),
        },
      },
    },
    "/v1/batches/{id}": {
      get: {
        operationId: "openAiRetrieveBatch",
        summary: "Retrieve a batch",
        tags,
        description: `The key's own batch (another key's: 404), with its status and \`request_counts\`. ${budget}`,
        parameters: [batchId],
        responses: {
          "200": limitedOk("The batch.", json(schemaRef("OpenAiBatch"))),
          ...openAiErrors(401, 404, 429, 503),
        },
      },
    },
    "/v1/batches/{id}/cancel": {
      post: {
        operationId: "openAiCancelBatch",
        summary: "Cancel a batch",
        tags,
        description: `The batch turns \`cancelling\` at once: no more lines are fed, its queued and running lines are cancelled, then it is \`cancelled\` with an output file of what completed and an error file (\`batch_cancelled\` for the lines that did not run). A batch already \`finalizing\` or final: 409. ${budget}`,
        parameters: [batchId],
        responses: {
          "200": limitedOk("The batch, `cancelling` (or `cancelled`).", json(schemaRef("OpenAiBatch"))),
          ...openAiErrors(401, 404, 409, 429, 503),
        },
      },
    },
  };
}
