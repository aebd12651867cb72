import type { HoldingCaps } from "@chorus/contracts";
import type { Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import type { OpenStreams } from "../services/open-streams.js";

/** What a route needs to hold a key to its caps: the deployment's defaults, and the open streams. */
export interface HoldingDeps {
  caps: HoldingCaps;
  openStreams: OpenStreams;
}

/** The caller's cap: its key's own limit, else the deployment's. */
export function holdingCap(req: Request, caps: HoldingCaps, holding: keyof HoldingCaps): number {
  return authenticatedKey(req).limits[holding] ?? caps[holding];
}

/** A place for one status stream or wait of the caller's key (429 at its cap); call the result when it ends. */
export function holdStream(req: Request, deps: HoldingDeps): Promise<() => void> {
  return deps.openStreams.hold(authenticatedKey(req).id, holdingCap(req, deps.caps, "streams"));
}

/** A place held for as long as the response is open (given back at once if the client left while it was taken). */
export async function holdWhileOpen(req: Request, res: Response, deps: HoldingDeps): Promise<void> {
  const release = await holdStream(req, deps);
  if (res.closed || res.destroyed) release();
  else res.once("close", release);
}
