import { randomBytes } from "node:crypto";
import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/** Stands for the deployment's WEBHOOK_SECRET where a rotation replaced it (a key older than per-key secrets). */
export const DEPLOYMENT_SECRET = "deployment";

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** How a key's deliveries are signed, as an operator may see it (never the secrets). */
export interface WebhookSigning {
  /** The key has a secret of its own; false: the deployment's WEBHOOK_SECRET signs (keys created before). */
  own: boolean;
  /** Until when (ms) the secret a rotation replaced still signs beside the new one; null: no overlap. */
  previousUntil: number | null;
}

/** A key's new webhook signing secret, and until when (ms) the one it replaced still signs (null: not at all). */
export interface RotatedWebhookSecret {
  webhookSecret: string;
  previousUntil: number | null;
}

interface StoredSecrets {
  current?: string;
  previous?: string;
  previousUntil?: string;
}

/**
 * The secrets that sign one key's webhooks, kept in Redis as written: the worker must compute HMACs
 * with them, so a hash would not do. Nothing answers them to anyone after they are made (POST
 * /admin/keys, `keys create`, a rotation); they sit in a hash of their own, not in the key's record,
 * so the gateways' key cache never holds them.
 */
export class WebhookSecrets {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * The secrets to sign a delivery of `keyId` with at `now`: the current one, and the replaced one
   * while a rotation's overlap lasts. A key without its own has `deploymentSecret` (none: nothing).
   */
  async signingSecrets(keyId: string, deploymentSecret: string | undefined, now = Date.now()): Promise<string[]> {
    const stored = await this.read(keyId);
    const resolve = (secret: string | undefined) => (secret === DEPLOYMENT_SECRET ? deploymentSecret : secret);
    const overlapping = Number(stored.previousUntil ?? 0) > now ? resolve(stored.previous) : undefined;
    const secrets = [stored.current ?? deploymentSecret, overlapping];
    return [...new Set(secrets.filter((secret): secret is string => secret !== undefined))];
  }

  /**
   * Gives the key (its record at `recordKey`) a new secret; the replaced one signs beside it for
   * `overlapMs`. The script is defined here, on first use, not with the store: ioredis copies every
   * script defined on a connection onto each of its pipelines, and the gateway's is auto-pipelined.
   */
  async rotate(keyId: string, recordKey: string, overlapMs: number, now = Date.now()): Promise<RotatedWebhookSecret> {
    const { rotate } = defineLuaScripts(this.redis, new URL("../lua/", import.meta.url), {
      rotate: "rotate-webhook-secret-2.lua",
    });
    const webhookSecret = newWebhookSecret();
    const previousUntil = overlapMs > 0 ? now + overlapMs : null;
    await rotate(
      this.keys.apiKeyWebhookSecrets(keyId),
      recordKey,
      webhookSecret,
      previousUntil ?? 0,
      DEPLOYMENT_SECRET,
    );
    return { webhookSecret, previousUntil };
  }

  async describe(keyId: string, now = Date.now()): Promise<WebhookSigning> {
    const stored = await this.read(keyId);
    const until = Number(stored.previousUntil ?? 0);
    return { own: stored.current !== undefined, previousUntil: until > now ? until : null };
  }

  private async read(keyId: string): Promise<StoredSecrets> {
    const stored: StoredSecrets = await this.redis.hgetall(this.keys.apiKeyWebhookSecrets(keyId));
    return stored;
  }
}
