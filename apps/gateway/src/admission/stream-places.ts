import type { ApiKeyRecord } from "@chorus/platform/api-keys";
import type { Response } from "express";
import type { OpenStreams } from "../services/open-streams.js";
import type { LimitPolicy } from "./limit-policy.js";

/** The places a key holds open (status streams, waits, streamed completions), up to its cap over all gateways. */
export class StreamPlaces {
  constructor(
    private readonly open: OpenStreams,
    private readonly limits: LimitPolicy,
  ) {}

  /** One place (429 at the key's cap, 503 at the gateway's); call the result when it ends. */
  hold(key: ApiKeyRecord): Promise<() => void> {
    return this.open.hold(key.id, this.limits.streams(key));
  }

  /** A place held for as long as the response is open (given back at once if the client already left). */
  async holdWhileOpen(key: ApiKeyRecord, res: Response): Promise<void> {
    const release = await this.hold(key);
    if (res.closed || res.destroyed) release();
    else res.once("close", release);
  }
}
