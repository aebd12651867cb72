import { validateUsageQuery } from "@chorus/contracts";
import type { UsageReader } from "@chorus/platform/usage";
import type { IRouter, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";

/**
 * GET /api/v2/usage: what the calling key's finished jobs used, by UTC day or by model, with the
 * key itself (it only ever sees its own); one poll of the status budget.
 */
export function addUsageRoute(router: IRouter, usage: UsageReader, guards: RouteGuards): void {
  router.get("/api/v2/usage", guards.authenticate, guards.limit, async (req: Request, res: Response) => {
    const query = validateUsageQuery(req.query);
    const report = await usage.report(authenticatedKey(req).id, query);
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, 200, report);
  });
}
