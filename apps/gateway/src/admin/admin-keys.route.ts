import { ApiError, validateNewApiKey, type KeyUpdate } from "@chorus/contracts";
import {
  ApiKeyError,
  ApiKeyRevoked,
  sumUsage,
  type ApiKeyLookup,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUsage,
} from "@chorus/platform/api-keys";
import type { IRouter, Request, RequestHandler } from "express";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import type { RequestCounts } from "../services/request-counts.js";

export interface AdminKeysDeps {
  apiKeys: ApiKeyStore;
  /** This process's cache of found keys: a revocation forgets the key there at once. */
  keyLookup: ApiKeyLookup;
  usage: ApiKeyUsage;
  requestCounts: Pick<RequestCounts, "flush">;
}

/** A key as the admin API shows it: never its secret (which is not stored). */
const shown = ({ id, name, scopes, limits, createdAt, revoked }: ApiKeyRecord) => ({
  id,
  name,
  scopes,
  limits,
  createdAt,
  revoked,
});

async function existingKey(apiKeys: ApiKeyStore, req: Request): Promise<ApiKeyRecord> {
  const id = String(req.params.id);
  const record = await apiKeys.get(id);
  if (!record) throw new ApiError("NOT_FOUND", `no API key with id '${id.slice(0, 64)}'`);
  return record;
}

/** POST/GET /admin/keys, PATCH/DELETE /admin/keys/{id}, GET /admin/keys/{id}/usage: the keys CLI's store, over HTTP. */
export function addAdminKeyRoutes(router: IRouter, deps: AdminKeysDeps, authenticate: RequestHandler): void {
  router.post("/admin/keys", authenticate, jsonBody(), async (req, res) => {
    const { name, scopes, limits, rotate } = validateNewApiKey(req.body);
    const created = await deps.apiKeys.create(name, scopes, limits, { replace: rotate }).catch((error: unknown) => {
      // The store refuses only a name held by a key not revoked (the input was checked above).
      if (error instanceof ApiKeyError)
        throw new ApiError(
          "CONFLICT",
          `a key named '${name}' already exists: choose another name, revoke it first, or send "rotate": true`,
        );
      throw error;
    });
    requestLogger(req).info("api key created", { keyId: created.record.id, name });
    const { id, createdAt } = created.record;
    res.setHeader("Cache-Control", "no-store"); // it carries the secret
    res.status(201).json({ id, key: created.secret, name, scopes, limits, createdAt });
  });
  router.get("/admin/keys", authenticate, async (_req, res) => {
    res.json({ data: (await deps.apiKeys.list()).map(shown) });
  });
  router.patch("/admin/keys/:id", authenticate, jsonBody(), async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    const updated = await deps.apiKeys.update(id, req.body as KeyUpdate).catch((error: unknown) => {
      if (error instanceof ApiKeyRevoked) throw new ApiError("CONFLICT", `key '${id}' is revoked: it cannot change`);
      throw error;
    });
    deps.keyLookup.forget(id);
    requestLogger(req).info("api key updated", { keyId: id, scopes: updated.scopes, limits: updated.limits });
    res.json(shown(updated));
  });
  router.delete("/admin/keys/:id", authenticate, async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    await deps.apiKeys.revokeById(id); // never by name: a key may be named like another key's id
    deps.keyLookup.forget(id);
    requestLogger(req).info("api key revoked", { keyId: id });
    res.status(204).end();
  });
  router.get("/admin/keys/:id/usage", authenticate, async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    await deps.requestCounts.flush(); // this gateway's own counts, so that what it admitted shows at once
    const days = await deps.usage.lastDays(id);
    res.json({ id, days, total: sumUsage(days) });
  });
}
