import { validateRequestsListQuery } from "@chorus/contracts";
import type { IRouter, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { decodeCursor, type RequestListing } from "../services/request-listing.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";

/** GET /api/v2/requests: the calling key's text requests, newest first; one poll of the status budget. */
export function addRequestsListRoute(router: IRouter, listing: RequestListing, guards: RouteGuards): void {
  router.get("/api/v2/requests", guards.authenticate, guards.limit, async (req: Request, res: Response) => {
    const query = validateRequestsListQuery(req.query);
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const page = await listing.page({
      keyId: authenticatedKey(req).id,
      status: query.status,
      limit: query.limit,
      after,
    });
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, 200, page);
  });
}
