import { ApiError, validateKeyRotation, validateNewApiKey, type KeyUpdate } from "@chorus/contracts";
import {
  ApiKeyError,
  ApiKeyRevoked,
  sumUsage,
  type ApiKeyLookup,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUsage,
} from "@chorus/platform/api-keys";
import type { IRouter, RequestHandler } from "express";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import { existingKey } from "./existing-key.js";
import type { RequestCounts } from "../services/request-counts.js";

export interface AdminKeysDeps {
  apiKeys: ApiKeyStore;
  /** This process's cache of found keys: a revocation forgets the key there at once. */
  keyLookup: ApiKeyLookup;
  usage: ApiKeyUsage;
  requestCounts: Pick<RequestCounts, "flush">;
}

/** A key as the admin API shows it: never its secret (which is not stored) nor its webhook secret. */
const shown = ({
  id,
  name,
  scopes,
  limits,
  webhookHosts,
  ownWebhookSecret,
  createdAt,
  expiresAt,
  priority,
  revoked,
}: ApiKeyRecord) => ({
  id,
  name,
  scopes,
  limits,
  webhookHosts,
  webhookSigning: ownWebhookSecret ? "own" : "deployment",
  createdAt,
  expiresAt,
  priority,
  revoked,
});

/** A revoked key cannot change: 409. */
function refuseRevoked(id: string) {
  return (error: unknown): never => {
    if (error instanceof ApiKeyRevoked) throw new ApiError("CONFLICT", `key '${id}' is revoked: it cannot change`);
    throw error;
  };
}

/** POST/GET /admin/keys, PATCH/DELETE /admin/keys/{id}, POST .../rotate, GET .../usage: the keys CLI's store. */
export function addAdminKeyRoutes(router: IRouter, deps: AdminKeysDeps, authenticate: RequestHandler): void {
  router.post("/admin/keys", authenticate, jsonBody(), async (req, res) => {
    const { name, scopes, limits, rotate, webhookHosts, expiresAt, priority } = validateNewApiKey(req.body);
    const options = {
      replace: rotate,
      priority,
      ...(webhookHosts && { webhookHosts }),
      ...(expiresAt && { expiresAt }),
    };
    const created = await deps.apiKeys.create(name, scopes, limits, options).catch((error: unknown) => {
      // Past the input checks (an expiry in the past is its ApiError), the store refuses only a name held.
      if (error instanceof ApiKeyError)
        throw new ApiError(
          "CONFLICT",
          `a key named '${name}' already exists: choose another name, revoke it first, or send "rotate": true`,
        );
      throw error;
    });
    requestLogger(req).info("api key created", { keyId: created.record.id, name });
    res.setHeader("Cache-Control", "no-store"); // it carries the secrets
    const { webhookSecret } = created;
    res.status(201).json({ ...shown(created.record), key: created.secret, webhookSecret });
  });
  router.get("/admin/keys", authenticate, async (_req, res) => {
    const listed = await deps.apiKeys.list();
    res.json({ data: listed.map((key) => ({ ...shown(key), lastUsedAt: key.lastUsedAt })) });
  });
  router.patch("/admin/keys/:id", authenticate, jsonBody(), async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    const updated = await deps.apiKeys.update(id, req.body as KeyUpdate).catch(refuseRevoked(id));
    deps.keyLookup.forget(id);
    const { scopes, limits, webhookHosts, expiresAt, priority } = updated;
    requestLogger(req).info("api key updated", { keyId: id, scopes, limits, webhookHosts, expiresAt, priority });
    res.json(shown(updated));
  });
  router.post("/admin/keys/:id/rotate", authenticate, jsonBody(), async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    const { overlapSeconds } = validateKeyRotation(req.body ?? {});
    const rotated = await deps.apiKeys.rotate(id, overlapSeconds * 1000).catch(refuseRevoked(id));
    deps.keyLookup.forget(id); // found again, the old secret carries its overlap's end (or is gone)
    requestLogger(req).info("api key rotated", { keyId: id, overlapSeconds });
    res.setHeader("Cache-Control", "no-store"); // it carries the secret
    const previousValidUntil =
      rotated.previousValidUntil === null ? null : new Date(rotated.previousValidUntil).toISOString();
    res.json({ ...shown(rotated.record), key: rotated.secret, previousValidUntil });
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
