import { ApiError, validateWebhookSecretRotation } from "@chorus/contracts";
import { ApiKeyRevoked, WebhookSecrets, type ApiKeyStore } from "@chorus/platform/api-keys";
import type { RedisClient, RedisKeys } from "@chorus/platform/redis";
import { readBreakers, type WebhookTurns } from "@chorus/platform/webhooks";
import type { IRouter, RequestHandler } from "express";
import type { LimitPolicy } from "../admission/limit-policy.js";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import { existingKey } from "./existing-key.js";

export interface AdminWebhooksDeps {
  apiKeys: ApiKeyStore;
  redis: RedisClient;
  keys: RedisKeys;
  webhookTurns: WebhookTurns;
  limits: LimitPolicy;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** POST /admin/keys/{id}/webhook-secret (a new signing secret) and GET /admin/keys/{id}/webhooks (their state). */
export function addAdminWebhookRoutes(router: IRouter, deps: AdminWebhooksDeps, authenticate: RequestHandler): void {
  const secrets = new WebhookSecrets(deps.redis, deps.keys);
  router.post("/admin/keys/:id/webhook-secret", authenticate, jsonBody(), async (req, res) => {
    const { id } = await existingKey(deps.apiKeys, req);
    const { overlapSeconds } = validateWebhookSecretRotation(req.body ?? {});
    const rotated = await deps.apiKeys.rotateWebhookSecret(id, overlapSeconds * 1000).catch((error: unknown) => {
      if (error instanceof ApiKeyRevoked) throw new ApiError("CONFLICT", `key '${id}' is revoked: it cannot change`);
      throw error;
    });
    requestLogger(req).info("webhook secret rotated", { keyId: id, overlapSeconds });
    res.setHeader("Cache-Control", "no-store"); // it carries the secret
    res.json({ id, webhookSecret: rotated.webhookSecret, previousValidUntil: iso(rotated.previousUntil) });
  });
  router.get("/admin/keys/:id/webhooks", authenticate, async (req, res) => {
    const key = await existingKey(deps.apiKeys, req);
    const [signing, pending, addresses] = await Promise.all([
      secrets.describe(key.id),
      deps.webhookTurns.pending(key.id),
      readBreakers(deps.redis, deps.keys, key.id),
    ]);
    res.json({
      id: key.id,
      signing: { ownSecret: signing.own, previousValidUntil: iso(signing.previousUntil) },
      hosts: key.webhookHosts,
      pending,
      maxPending: deps.limits.webhooks(key),
      addresses,
    });
  });
}
