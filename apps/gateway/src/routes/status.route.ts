import { ApiError } from "@chorus/contracts";
import type { StatusStore, StoredStatus } from "@chorus/platform";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import type { TextJobs } from "../services/text-jobs.service.js";

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;
const STATUS_PATHS = ["/api/v2/status/:id", "/api/status/:id"];

/**
 * An unknown id, an expired id and another key's id all get the same 404, so a key cannot learn
 * that someone else's job exists.
 */
async function ownedStatus(statuses: StatusStore, req: Request): Promise<{ id: string; stored: StoredStatus }> {
  const id = String(req.params.id);
  const stored = REQUEST_ID.test(id) ? await statuses.get(id) : null;
  if (!stored || stored.owner !== authenticatedKey(req).id) {
    throw new ApiError("NOT_FOUND", `no request with id '${id.slice(0, 64)}' for this API key (it may have expired)`);
  }
  return { id, stored };
}

/** Both status paths answer from one HGETALL; DELETE cancels (owner only). */
export function statusRouter(statuses: StatusStore, jobs: TextJobs, limit: RequestHandler): Router {
  const router = Router();
  router.get(STATUS_PATHS, limit, async (req: Request, res: Response) => {
    const { stored } = await ownedStatus(statuses, req);
    res.setHeader("Cache-Control", "no-store");
    res.json(stored.record);
  });
  router.delete(STATUS_PATHS, limit, async (req: Request, res: Response) => {
    const { id, stored } = await ownedStatus(statuses, req);
    const cancelled = stored.record.status === "processing" && (await jobs.cancel(id));
    if (!cancelled) throw new ApiError("CONFLICT", `request '${id}' has already finished; only a processing request can be cancelled`);
    res.json((await statuses.get(id))?.record);
  });
  return router;
}
