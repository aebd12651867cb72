import { randomBytes } from "node:crypto";
import {
  ApiError,
  BATCH_ENDPOINTS,
  BATCH_LIMITS,
  FINAL_BATCH_STATUSES,
  type BatchEndpoint,
  type ChatLimits,
  openAiList,
  type OpenAiBatchList,
} from "@chorus/contracts";
import type { BatchStore } from "@chorus/platform/batches";
import type { FileStore } from "@chorus/platform/files";
import type { Express, Request, RequestHandler, Response } from "express";
import type { LimitPolicy } from "../admission/limit-policy.js";
import { batchObject } from "../batches/batch-object.js";
import { readBatchLines } from "../batches/read-batch-lines.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { sendJson } from "../routes/send-json.js";

export interface BatchRouteDeps {
  batches: BatchStore;
  files: FileStore;
  limits: LimitPolicy;
  chatLimits: ChatLimits;
  /** A batch's window (s): 24 h; shorter only where tests inject it (BATCH_WINDOW_SECONDS_FOR_TESTS). */
  windowSeconds: number;
  /** Tells the feeders that a batch was created or cancelled (they act at once rather than on their next loop). */
  nudge(batchId: string): Promise<void>;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function notFound(id: string): ApiError {
  return new ApiError("NOT_FOUND", `no batch with id '${id}' for this API key`, { parameter: "batch_id" });
}

/** `metadata` as OpenAI bounds it: at most 16 string pairs, keys ≤ 64 characters, values ≤ 512. */
function readMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  const { maxPairs, maxKeyChars, maxValueChars } = BATCH_LIMITS.metadata;
  const bad = () =>
    ApiError.invalidParameter(
      "metadata",
      "object",
      `metadata must be an object of at most ${maxPairs} string pairs (keys up to ${maxKeyChars} characters, values up to ${maxValueChars})`,
    );
  if (typeof value !== "object" || Array.isArray(value)) throw bad();
  const pairs = Object.entries(value as Record<string, unknown>);
  if (pairs.length > maxPairs) throw bad();
  for (const [k, v] of pairs)
    if (k.length > maxKeyChars || typeof v !== "string" || v.length > maxValueChars) throw bad();
  return value as Record<string, string>;
}

function readCreate(body: unknown) {
  const {
    input_file_id: inputFileId,
    endpoint,
    completion_window: window,
    metadata,
  } = (body ?? {}) as Record<string, unknown>;
  if (typeof inputFileId !== "string" || inputFileId === "")
    throw ApiError.invalidParameter("input_file_id", "string", "input_file_id is required: a file of purpose batch");
  if (!BATCH_ENDPOINTS.includes(endpoint as BatchEndpoint))
    throw ApiError.invalidParameter("endpoint", "string", `endpoint must be one of ${BATCH_ENDPOINTS.join(", ")}`);
  if (window !== BATCH_LIMITS.completionWindow)
    throw ApiError.invalidParameter("completion_window", "string", "completion_window must be `24h`");
  return { inputFileId, endpoint: endpoint as BatchEndpoint, metadata: readMetadata(metadata) };
}

async function createBatch(deps: BatchRouteDeps, req: Request, res: Response): Promise<void> {
  const key = authenticatedKey(req);
  const { inputFileId, endpoint, metadata } = readCreate(req.body);
  const cap = deps.limits.batches(key);
  if ((await deps.batches.activeCount(key.id)) >= cap)
    throw new ApiError(
      "RATE_LIMITED",
      `this API key already has ${cap} batches in progress, its cap (batches ${cap}); retry when one has finished or cancel one`,
      undefined,
      60,
    );
  const file = await deps.files.get(key.id, inputFileId);
  if (!file || file.purpose !== "batch")
    throw new ApiError("NOT_FOUND", `no file of purpose batch with id '${inputFileId}' for this API key`, {
      parameter: "input_file_id",
    });
  const content = await deps.files.content(key.id, inputFileId);
  if (content === null)
    throw new ApiError("NOT_FOUND", `no file with id '${inputFileId}'`, { parameter: "input_file_id" });
  const lines = readBatchLines(content, endpoint, deps.chatLimits);
  const now = Date.now();
  const batch = {
    id: `batch_${randomBytes(12).toString("hex")}`,
    keyId: key.id,
    endpoint,
    inputFileId,
    metadata,
    createdAt: seconds(now),
    expiresAt: seconds(now) + deps.windowSeconds,
  };
  await deps.batches.create(
    batch,
    lines.map((line) => JSON.stringify(line)),
  );
  await deps.nudge(batch.id).catch(() => undefined);
  sendJson(res, 200, batchObject((await deps.batches.get(batch.id))!));
}

async function ownBatch(deps: BatchRouteDeps, req: Request) {
  const id = String(req.params.id);
  const batch = await deps.batches.get(id);
  if (!batch || batch.keyId !== authenticatedKey(req).id) throw notFound(id);
  return batch;
}

function listQuery(req: Request) {
  const { limit, after } = req.query;
  const { min, max, default: byDefault } = BATCH_LIMITS.list;
  const count = limit === undefined ? byDefault : Number(limit);
  if (!Number.isInteger(count) || count < min || count > max)
    throw ApiError.invalidParameter("limit", "integer", `limit must be an integer from ${min} to ${max}`);
  return { limit: count, after: typeof after === "string" ? after : undefined };
}

/**
 * OpenAI's Batch API: `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches` and
 * `POST /v1/batches/{id}/cancel`. Each batch is its creator's key's own (another key's is 404); every
 * call spends the key's status budget (`limit`), as the Files API's do. The lines run as the key's
 * requests, fed by the feeders (batches/batch-feeder.ts).
 */
export function addBatchRoutes(
  app: Express,
  deps: BatchRouteDeps,
  authenticate: RequestHandler,
  limit: RequestHandler,
): void {
  app.post("/v1/batches", authenticate, limit, jsonBody(), (req, res) => createBatch(deps, req, res));
  app.get("/v1/batches", authenticate, limit, async (req, res) => {
    const { limit: count, after } = listQuery(req);
    const { batches, hasMore } = await deps.batches.list(authenticatedKey(req).id, count, after);
    const list: OpenAiBatchList = openAiList(batches.map(batchObject), hasMore);
    sendJson(res, 200, list);
  });
  app.get("/v1/batches/:id", authenticate, limit, async (req, res) => {
    sendJson(res, 200, batchObject(await ownBatch(deps, req)));
  });
  app.post("/v1/batches/:id/cancel", authenticate, limit, async (req, res) => {
    const batch = await ownBatch(deps, req);
    if (FINAL_BATCH_STATUSES.includes(batch.status) || batch.status === "finalizing")
      throw new ApiError("CONFLICT", `batch '${batch.id}' is ${batch.status}: it can no longer be cancelled`, {
        parameter: "batch_id",
      });
    await deps.batches.cancel(batch.id);
    await deps.nudge(batch.id).catch(() => undefined);
    sendJson(res, 200, batchObject((await deps.batches.get(batch.id))!));
  });
}
