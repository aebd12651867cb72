import { ApiError } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Both status paths answer from one HGETALL. An unknown id, an expired id and another key's id all
 * get the same 404, so a key cannot learn that someone else's job exists.
 */
export function statusRouter(statuses: StatusStore, limit: RequestHandler): Router {
  const router = Router();
  const handler = async (req: Request, res: Response) => {
    const id = String(req.params.id);
    const stored = REQUEST_ID.test(id) ? await statuses.get(id) : null;
    if (!stored || stored.owner !== authenticatedKey(req).id) {
      throw new ApiError("NOT_FOUND", `no request with id '${id.slice(0, 64)}' for this API key (it may have expired)`);
    }
    res.setHeader("Cache-Control", "no-store");
    res.json(stored.record);
  };
  router.get("/api/v2/status/:id", limit, handler);
  router.get("/api/status/:id", limit, handler);
  return router;
}
