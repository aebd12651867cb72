import { randomBytes } from "node:crypto";
import {
  DEFAULT_PRIORITY_TIER,
  expiryTime,
  isPriorityTier,
  validateKeyUpdate,
  validateNewApiKey,
  type KeyLimits,
  type KeyUpdate,
  type PriorityTier,
} from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { hashSecret, newSecret, SECRET_PREFIX } from "./api-key-secret.js";
import { rotateKeySecret, type RotatedSecret } from "./api-key-rotation.js";
import { newWebhookSecret, WebhookSecrets, type RotatedWebhookSecret } from "./webhook-secrets.js";

/** What the service knows about a key. The secret itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  scopes: string[];
  /** Overrides of the configured per-minute limits and holding caps, for this key only. */
  limits: KeyLimits;
  /** The only hosts its webhooks may name (set by the operator); null: any the address rules allow. */
  webhookHosts: string[] | null;
  /** It has a webhook signing secret of its own; false: a key from before, signed with WEBHOOK_SECRET. */
  ownWebhookSecret: boolean;
  createdAt: string;
  /** After this (ISO) the key is refused; null: never. */
  expiresAt: string | null;
  /** How its text requests' turns weigh against other keys' (set by the operator). */
  priority: PriorityTier;
  revoked: boolean;
  /** Found by the secret a rotation replaced: it is accepted until then (ms). Null: the current secret. */
  replacedSecretUntil: number | null;
}

/** A key as listed: with when it last authenticated (null: not since this was recorded). */
export type ListedApiKey = ApiKeyRecord & { lastUsedAt: string | null };

export interface NewApiKey {
  record: ApiKeyRecord;
  /** The secret, shown once at creation. */
  secret: string;
  /** The key's webhook signing secret (`whsec_…`), shown once at creation. */
  webhookSecret: string;
}

export class ApiKeyError extends Error {}

/** The key exists but is revoked, so it cannot change. */
export class ApiKeyRevoked extends ApiKeyError {}

function fromHash(hash: Record<string, string>): ApiKeyRecord | null {
  if (!hash.id || !hash.name) return null;
  return {
    id: hash.id,
    name: hash.name,
    scopes: JSON.parse(hash.scopes ?? "[]") as string[],
    limits: JSON.parse(hash.limits ?? "{}") as KeyLimits,
    webhookHosts: hash.webhookHosts ? (JSON.parse(hash.webhookHosts) as string[]) : null,
    ownWebhookSecret: hash.webhookSecret === "own",
    createdAt: hash.createdAt ?? "",
    expiresAt: hash.expiresAt || null,
    priority: isPriorityTier(hash.priority) ? hash.priority : DEFAULT_PRIORITY_TIER,
    revoked: hash.revoked === "1",
    replacedSecretUntil: null,
  };
}

interface Changeable {
  key: string;
  record: ApiKeyRecord;
  secretHash: string;
  /** The secret the last rotation replaced (its pointer may have expired already). */
  previousSecretHash: string | null;
}

export class ApiKeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * A new key named `name` (names are unique among keys not revoked). With `replace`, a key already
   * holding the name is revoked first: how a key is rotated under the same name. Bad input (the
   * contract's bounds, shared by the admin API and the CLI) throws ApiError INVALID_PARAMETER. The
   * key gets its own webhook signing secret, stored beside it (webhook-secrets.ts).
   */
  async create(
    name: string,
    scopes: string[],
    limits: KeyLimits = {},
    {
      replace = false,
      webhookHosts,
      expiresAt,
      priority = DEFAULT_PRIORITY_TIER,
    }: { replace?: boolean; webhookHosts?: string[]; expiresAt?: string; priority?: PriorityTier } = {},
  ): Promise<NewApiKey> {
    const optional = { ...(webhookHosts && { webhookHosts }), ...(expiresAt && { expiresAt }) };
    validateNewApiKey({ name, scopes, limits, priority, ...optional });
    if (expiresAt !== undefined) expiryTime(expiresAt);
    const holder = replace ? await this.redis.hget(this.keys.apiKeyNames(), name) : null;
    if (holder) await this.revokeById(holder);
    const record: ApiKeyRecord = {
      id: `key_${randomBytes(8).toString("hex")}`,
      name,
      scopes,
      limits,
      webhookHosts: webhookHosts ?? null,
      ownWebhookSecret: true,
      createdAt: new Date().toISOString(),
      expiresAt: expiresAt ?? null,
      priority,
      revoked: false,
      replacedSecretUntil: null,
    };
    const claimed = await this.redis.hsetnx(this.keys.apiKeyNames(), name, record.id);
    if (claimed === 0)
      throw new ApiKeyError(
        `a key named "${name}" already exists: choose another name, revoke it first, or replace it (keys create --rotate)`,
      );
    const secret = newSecret();
    const secretHash = hashSecret(secret);
    const webhookSecret = newWebhookSecret();
    const { webhookHosts: hosts, ownWebhookSecret: _, replacedSecretUntil: __, expiresAt: ___, ...fields } = record;
    await this.redis
      .multi()
      .hset(this.keys.apiKeyBySecretHash(secretHash), {
        ...fields,
        scopes: JSON.stringify(scopes),
        limits: JSON.stringify(limits),
        ...(hosts && { webhookHosts: JSON.stringify(hosts) }),
        ...(expiresAt && { expiresAt }),
        webhookSecret: "own",
        revoked: "0",
      })
      .hset(this.keys.apiKeyWebhookSecrets(record.id), "current", webhookSecret)
      .hset(this.keys.apiKeyIndex(), record.id, secretHash)
      .exec();
    return { record, secret, webhookSecret };
  }

  /**
   * The key a request presents, or null when it is unknown. Revoked and expired keys are returned as
   * such; a secret a rotation replaced, during its overlap, as its key with `replacedSecretUntil`.
   */
  async findBySecret(secret: string, now = Date.now()): Promise<ApiKeyRecord | null> {
    if (!secret.startsWith(SECRET_PREFIX)) return null;
    const hash = await this.redis.hgetall(this.keys.apiKeyBySecretHash(hashSecret(secret)));
    if (!hash.replacedBy) return fromHash(hash);
    const until = Number(hash.until);
    const record = until > now ? await this.get(hash.replacedBy) : null;
    return record && { ...record, replacedSecretUntil: until };
  }

  /** The key with this id (revoked or not), or null. */
  async get(id: string): Promise<ApiKeyRecord | null> {
    const secretHash = await this.redis.hget(this.keys.apiKeyIndex(), id);
    return secretHash ? fromHash(await this.redis.hgetall(this.keys.apiKeyBySecretHash(secretHash))) : null;
  }

  async list(): Promise<ListedApiKey[]> {
    const [index, lastUsed] = await Promise.all([
      this.redis.hgetall(this.keys.apiKeyIndex()),
      this.redis.hgetall(this.keys.apiKeyLastUsed()),
    ]);
    const pipeline = this.redis.pipeline();
    for (const secretHash of Object.values(index)) pipeline.hgetall(this.keys.apiKeyBySecretHash(secretHash));
    const results = (await pipeline.exec()) ?? [];
    return results
      .map(([, hash]) => fromHash(hash as Record<string, string>))
      .filter((r): r is ApiKeyRecord => r !== null)
      .map((record) => ({ ...record, lastUsedAt: lastUsed[record.id] ?? null }))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Changes a key's scopes, limits, webhook hosts, expiry and priority tier in place (its secret, id and usage stay):
   * each limit named sets it, or with null drops it; webhookHosts replaces the list, null drops it;
   * expiresAt (in the future) sets the expiry, null drops it. Bad
   * input throws ApiError INVALID_PARAMETER; a revoked key cannot change. Gateways see the change once
   * their key cache lets go of the old record.
   */
  async update(id: string, change: KeyUpdate): Promise<ApiKeyRecord> {
    const { scopes, limits, webhookHosts, expiresAt, priority } = validateKeyUpdate(change);
    if (expiresAt) expiryTime(expiresAt);
    const { key, record } = await this.changeable(id);
    const merged: KeyLimits = { ...record.limits };
    for (const [name, value] of Object.entries(limits ?? {}) as [keyof KeyLimits, number | null][]) {
      if (value === null) delete merged[name];
      else merged[name] = value;
    }
    const hosts = webhookHosts === undefined ? record.webhookHosts : webhookHosts;
    const expiry = expiresAt === undefined ? record.expiresAt : expiresAt;
    const updated = {
      ...record,
      scopes: scopes ?? record.scopes,
      limits: merged,
      webhookHosts: hosts,
      expiresAt: expiry,
      priority: priority ?? record.priority,
    };
    const write = this.redis.multi().hset(key, {
      scopes: JSON.stringify(updated.scopes),
      limits: JSON.stringify(merged),
      priority: updated.priority,
    });
    if (hosts === null) write.hdel(key, "webhookHosts");
    else write.hset(key, "webhookHosts", JSON.stringify(hosts));
    if (expiry === null) write.hdel(key, "expiresAt");
    else write.hset(key, "expiresAt", expiry);
    await write.exec();
    return updated;
  }

  /**
   * A new webhook signing secret for the key. With `overlapMs` the one it replaces (a key from before
   * per-key secrets: the deployment's WEBHOOK_SECRET) still signs beside it that long, so its owner
   * can move its receivers over; a delivery then carries both signatures.
   */
  async rotateWebhookSecret(id: string, overlapMs: number, now = Date.now()): Promise<RotatedWebhookSecret> {
    const { key } = await this.changeable(id);
    return new WebhookSecrets(this.redis, this.keys).rotate(id, key, overlapMs, now);
  }

  /**
   * A new secret for the key, its id, scopes, limits, usage and webhook secret kept. With `overlapMs`
   * the replaced secret is still accepted that long; only the newest replaced secret overlaps (an
   * earlier rotation's stops at once). A revoked key cannot rotate.
   */
  async rotate(id: string, overlapMs: number, now = Date.now()): Promise<RotatedSecret & { record: ApiKeyRecord }> {
    const { key, record, secretHash, previousSecretHash } = await this.changeable(id);
    const rotated = await rotateKeySecret(this.redis, this.keys, {
      id,
      recordKey: key,
      secretHash,
      previousSecretHash,
      overlapMs,
      now,
    });
    if (rotated === "revoked") throw new ApiKeyRevoked(`key "${id}" is revoked: it cannot change`);
    if (rotated === "changed") throw new ApiKeyError(`key "${id}" changed meanwhile (rotated or revoked): try again`);
    return { ...rotated, record };
  }

  /** The record of a key that may change (it exists and is not revoked), and its Redis key. */
  private async changeable(id: string): Promise<Changeable> {
    const secretHash = await this.redis.hget(this.keys.apiKeyIndex(), id);
    const key = secretHash ? this.keys.apiKeyBySecretHash(secretHash) : null;
    const hash = key ? await this.redis.hgetall(key) : {};
    const record = fromHash(hash);
    if (!key || !secretHash || !record) throw new ApiKeyError(`no key with id "${id}"`);
    if (record.revoked) throw new ApiKeyRevoked(`key "${id}" is revoked: it cannot change`);
    return { key, record, secretHash, previousSecretHash: hash.previousSecretHash ?? null };
  }

  /**
   * Revokes the key with this id (an id only ever matches an id, never a name: a key may be named
   * like another key's id) and frees its name for a new key; returns the revoked record.
   */
  async revokeById(id: string): Promise<ApiKeyRecord> {
    const secretHash = await this.redis.hget(this.keys.apiKeyIndex(), id);
    if (!secretHash) throw new ApiKeyError(`no key with id "${id}"`);
    const key = this.keys.apiKeyBySecretHash(secretHash);
    await this.redis.hset(key, "revoked", "1");
    const record = fromHash(await this.redis.hgetall(key));
    if (!record) throw new ApiKeyError(`key "${id}" has no record`);
    if ((await this.redis.hget(this.keys.apiKeyNames(), record.name)) === id)
      await this.redis.hdel(this.keys.apiKeyNames(), record.name);
    return record;
  }

  /** Revokes the key not revoked that holds this name (only the operators' CLI asks by name). */
  async revokeByName(name: string): Promise<ApiKeyRecord> {
    const id = await this.redis.hget(this.keys.apiKeyNames(), name);
    if (!id) throw new ApiKeyError(`no key named "${name}" that is not revoked`);
    return this.revokeById(id);
  }
}
