import { ApiError, isRequestId, type StatusRecord } from "@chorus/contracts";
import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { IRouter, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import type { StatusChanges } from "../services/status-changes.js";
import { notFound, ownedBy } from "../services/owned-status.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import type { StreamPlaces } from "../admission/stream-places.js";
import { markWaitApplied, preferredWaitSeconds } from "./prefer-wait.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";
import { streamStatus, wantsEventStream } from "./status-stream.js";
import { finalOrLatest } from "./wait-for-final.js";

/** The spec's two status paths; each is its own route so metrics label them apart without matching. */
const STATUS_PATHS = ["/api/v2/status/:id", "/api/status/:id"];

const PREFETCHED = Symbol("prefetchedStatus");
type RequestWithPrefetch = Request & { [PREFETCHED]?: Promise<StoredStatus | null> };

/**
 * Starts reading the record before the rate limiter runs: both commands then leave in the same tick
 * and share one write and one round trip (auto-pipelining). A rate-limited poll wastes one read.
 */
function prefetchStatus(statuses: StatusStore) {
  return (req: Request, _res: Response, next: () => void) => {
    const id = String(req.params.id);
    const read = isRequestId(id) ? statuses.get(id) : Promise.resolve(null);
    read.catch(() => undefined); // awaited (and its error handled) by the route, unless limited
    (req as RequestWithPrefetch)[PREFETCHED] = read;
    next();
  };
}

async function ownedStatus(req: Request): Promise<{ id: string; stored: StoredStatus }> {
  const id = String(req.params.id);
  const stored = ownedBy((await (req as RequestWithPrefetch)[PREFETCHED]) ?? null, authenticatedKey(req).id);
  if (!stored) throw notFound(id);
  return { id, stored };
}

/**
 * The record; with `Prefer: wait=N`, once it is final or N seconds have passed (one poll, however
 * long); with `Accept: text/event-stream`, as a stream of snapshots until it is final (one poll too).
 * A stream or wait on a request still processing holds one of its key's open streams while it lasts.
 */
function answerStatus(deps: StatusRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const { id, stored } = await ownedStatus(req);
    const processing = stored.record.status === "processing";
    if (wantsEventStream(req)) {
      if (processing) await deps.places.holdWhileOpen(authenticatedKey(req), res);
      return streamStatus(req, res, deps, id, stored);
    }
    const wait = preferredWaitSeconds(req.headers.prefer);
    let record = stored.record;
    if (wait !== null) {
      if (processing && wait > 0) record = (await waitedRecord(req, res, deps, id, wait)) ?? record;
      markWaitApplied(res, wait);
    }
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, 200, record);
  };
}

async function waitedRecord(
  req: Request,
  res: Response,
  deps: StatusRouteDeps,
  id: string,
  wait: number,
): Promise<StatusRecord | undefined> {
  const release = await deps.places.hold(authenticatedKey(req));
  try {
    return (await finalOrLatest(deps.statuses, deps.waits, id, wait, res))?.record;
  } finally {
    release();
  }
}

function cancelRequest(statuses: StatusStore, jobs: TextJobs) {
  return async (req: Request, res: Response) => {
    const { id, stored } = await ownedStatus(req);
    const cancelled = stored.record.status === "processing" && (await jobs.cancel(id));
    if (!cancelled)
      throw new ApiError(
        "CONFLICT",
        `request '${id}' has already finished; only a processing request can be cancelled`,
      );
    res.json((await statuses.get(id))?.record);
  };
}

export interface StatusRouteDeps {
  statuses: StatusStore;
  jobs: TextJobs;
  waits: FinalStatusWaits;
  changes: StatusChanges;
  /** A stream or wait holds one of its key's places while it lasts. */
  places: StreamPlaces;
}

/**
 * Both status paths answer from one status read (StatusStore.get; and wait, when asked); DELETE cancels (owner only).
 */
export function addStatusRoutes(router: IRouter, deps: StatusRouteDeps, guards: RouteGuards): void {
  const prefetch = prefetchStatus(deps.statuses);
  const cancel = cancelRequest(deps.statuses, deps.jobs);
  const answer = answerStatus(deps);
  for (const path of STATUS_PATHS) {
    router.get(path, guards.authenticate, prefetch, guards.limit, answer);
    router.delete(path, guards.authenticate, prefetch, guards.limit, cancel);
  }
}
