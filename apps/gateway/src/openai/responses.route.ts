import {
  ApiError,
  mapResponseCreateRequest,
  requestIdOfResponse,
  responseObjectOf,
  type MappedResponseRequest,
  type ResponseIdentity,
} from "@chorus/contracts";
import type { StoredStatus } from "@chorus/platform/scheduler";
import type { Express, Request, RequestHandler, Response } from "express";
import { RESPONSES_FEATURE_FIELDS } from "../admission/engine-features.js";
import type { StreamPlaces } from "../admission/stream-places.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { logHttp } from "../middleware/request-context.js";
import { sendJson } from "../routes/send-json.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import { applyQueueDeadline } from "../routes/prefer-wait.js";
import { notFound, ownedBy } from "../services/owned-status.js";
import { streamCompletion } from "./chat-stream.js";
import type { ChatCompletionDeps } from "./chat-completions.route.js";
import { cancelWhenClientLeaves, finalRecord, modelNamedIn } from "./text-door.js";
import { ResponseEvents } from "./response-events.js";

export interface ResponsesDeps extends ChatCompletionDeps {
  places: StreamPlaces;
}

const identityOf = (stored: StoredStatus, requestId: string, echo: ResponseIdentity["echo"]): ResponseIdentity => ({
  requestId,
  model: stored.model,
  createdAt: Math.floor(stored.createdAt / 1000),
  echo,
});

/**
 * POST /v1/responses: the text job of a chat completion, in the Responses API's shapes. Whole, it is
 * answered once final; streamed, as events; with `background`, at once (`queued`), the job running
 * without the client, which polls GET /v1/responses/{id} or streams it (resuming with
 * `starting_after`). Only a client that waits or streams holds one of its key's places.
 */
function createResponse(deps: ResponsesDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    let mapped: MappedResponseRequest | undefined;
    const read = () => {
      mapped = mapResponseCreateRequest(req.body, deps.limits);
      applyQueueDeadline(mapped.chat.request, req.headers.prefer);
      const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
      return { ...mapped.chat, idempotencyKey, streamReply: mapped.stream, featureFields: RESPONSES_FEATURE_FIELDS };
    };
    const body = req.body as { background?: unknown; stream?: unknown } | null;
    const holdsStream = body?.background !== true || body.stream === true;
    const submission = { key: authenticatedKey(req), model: modelNamedIn(req.body), holdsStream, read };
    const admitted = await deps.admission.admit(submission, deps.budgets(req, res));
    try {
      const request = mapped as MappedResponseRequest;
      const { id } = admitted;
      logHttp(req, "response accepted", { jobId: id, model: admitted.model, background: request.background });
      if (!request.background) cancelWhenClientLeaves(req, res, deps.jobs, id);
      await answer(deps, res, id, request);
    } finally {
      admitted.release();
    }
  };
}

async function answer(deps: ResponsesDeps, res: Response, id: string, request: MappedResponseRequest): Promise<void> {
  const stored = await deps.statuses.get(id);
  if (!stored) throw new ApiError("INTERNAL_ERROR", "the response's record expired before it was read");
  const identity = identityOf(stored, id, request.echo);
  if (request.stream) return streamCompletion(res, deps, id, new ResponseEvents(res, identity));
  if (request.background) return sendJson(res, 200, responseObjectOf(identity, stored.record));
  const final = await finalRecord(deps, id, res);
  if (!res.closed) sendJson(res, 200, responseObjectOf(identity, (final ?? stored).record));
}

/** The caller's own response (404 for another key's, as for an unknown id). */
async function ownedResponse(deps: ResponsesDeps, req: Request): Promise<{ id: string; stored: StoredStatus }> {
  const responseId = String(req.params.id);
  const id = requestIdOfResponse(responseId);
  const stored = id ? ownedBy(await deps.statuses.get(id), authenticatedKey(req).id) : null;
  if (!id || !stored) throw notFound(responseId);
  return { id, stored };
}

/** `?stream=true&starting_after=N`: the response's events after N, then live until it ends. */
function streamQuery(req: Request): { stream: boolean; after: number } {
  const { stream, starting_after: after } = req.query;
  const wanted = stream === "true";
  if (after === undefined) return { stream: wanted, after: -1 };
  if (typeof after !== "string" || !/^\d+$/.test(after))
    throw ApiError.invalidParameter(
      "starting_after",
      "integer",
      "starting_after must be a sequence number (0 or more)",
    );
  return { stream: wanted, after: Number(after) };
}

function retrieveResponse(deps: ResponsesDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const { stream, after } = streamQuery(req);
    const { id, stored } = await ownedResponse(deps, req);
    const identity = identityOf(stored, id, null);
    if (!stream) return sendJson(res, 200, responseObjectOf(identity, stored.record));
    if (stored.record.status === "processing") await deps.places.holdWhileOpen(authenticatedKey(req), res);
    await streamCompletion(res, deps, id, new ResponseEvents(res, identity, after));
  };
}

/** Stops a response still running (as DELETE /api/v2/status/{id}); a finished one is answered as it is. */
function cancelResponse(deps: ResponsesDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const { id, stored } = await ownedResponse(deps, req);
    if (stored.record.status === "processing" && (await deps.jobs.cancel(id)))
      logHttp(req, "response cancelled", { jobId: id });
    const now = (await deps.statuses.get(id)) ?? stored;
    sendJson(res, 200, responseObjectOf(identityOf(now, id, null), now.record));
  };
}

/** The Responses API's routes: create (the text budget, through admission); retrieve and cancel (the status budget). */
export function addResponsesRoutes(
  app: Express,
  deps: ResponsesDeps,
  guards: { authenticate: RequestHandler; status: RequestHandler },
): void {
  app.post("/v1/responses", guards.authenticate, jsonBody(), createResponse(deps));
  app.get("/v1/responses/:id", guards.authenticate, guards.status, retrieveResponse(deps));
  app.post("/v1/responses/:id/cancel", guards.authenticate, guards.status, cancelResponse(deps));
}
