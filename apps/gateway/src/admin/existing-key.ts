import { ApiError } from "@chorus/contracts";
import type { ApiKeyRecord, ApiKeyStore } from "@chorus/platform/api-keys";
import type { Request } from "express";

/** The key named by the path's `id`, or 404. */
export async function existingKey(apiKeys: ApiKeyStore, req: Request): Promise<ApiKeyRecord> {
  const id = String(req.params.id);
  const record = await apiKeys.get(id);
  if (!record) throw new ApiError("NOT_FOUND", `no API key with id '${id.slice(0, 64)}'`);
  return record;
}
