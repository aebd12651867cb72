import { type BatchStatusItem, validateBatchStatusQuery } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { IRouter, Request, RequestHandler, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { notFound, ownedBy } from "../services/owned-status.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";

const IDS = Symbol("batchIds");
type RequestWithIds = Request & { [IDS]?: string[] };

function idsOf(req: Request): string[] {
  return (req as RequestWithIds)[IDS] ?? [];
}

/** Reads `ids` after the first poll is charged (so a malformed list counts once, with the usual headers). */
function parseIds(req: Request, _res: Response, next: () => void): void {
  (req as RequestWithIds)[IDS] = validateBatchStatusQuery(req.query);
  next();
}

function answerBatch(statuses: StatusStore) {
  return async (req: Request, res: Response): Promise<void> => {
    const ids = idsOf(req);
    const keyId = authenticatedKey(req).id;
    // One status read per id, all sent together on the auto-pipelined connection.
    const records = await Promise.all(ids.map((id) => statuses.get(id)));
    const data = ids.map((id, i): BatchStatusItem => {
      const stored = ownedBy(records[i] ?? null, keyId);
      if (stored) return { id, ...stored.record };
      return { id, error: { code: "NOT_FOUND", message: notFound(id).message } };
    });
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, 200, { data });
  };
}

export interface BatchStatusGuards extends RouteGuards {
  /** Charges the status budget for the ids past the first (`limit` charged the first). */
  chargeIds(units: (req: Request) => number): RequestHandler;
}

/** GET /api/v2/status?ids=a,b,c: many status records in one request, counted as one poll per id. */
export function addBatchStatusRoute(router: IRouter, statuses: StatusStore, guards: BatchStatusGuards): void {
  router.get(
    "/api/v2/status",
    guards.authenticate,
    guards.limit,
    parseIds,
    guards.chargeIds((req) => idsOf(req).length),
    answerBatch(statuses),
  );
}
