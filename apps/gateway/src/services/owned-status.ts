import { ApiError } from "@chorus/contracts";
import type { StoredStatus } from "@chorus/platform/scheduler";

/**
 * The record if `keyId` owns it. An unknown id, an expired id and another key's id all get the
 * same NOT_FOUND (notFound), so a key cannot learn that someone else's job exists.
 */
export function ownedBy(stored: StoredStatus | null, keyId: string): StoredStatus | null {
  return stored?.owner === keyId ? stored : null;
}

export function notFound(id: string): ApiError {
  return new ApiError("NOT_FOUND", `no request with id '${id.slice(0, 64)}' for this API key (it may have expired)`);
}
