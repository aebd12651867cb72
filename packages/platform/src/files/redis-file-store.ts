import type { FilePurpose } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import type { FileListQuery, FileStore, StoredFile } from "./file-store.js";

const SCRIPTS = { put: "put-file-3.lua" } as const;

function fromHash(id: string, hash: Record<string, string>): StoredFile | null {
  if (!hash.filename) return null;
  return {
    id,
    filename: hash.filename,
    purpose: hash.purpose as FilePurpose,
    bytes: Number(hash.bytes),
    createdAt: Number(hash.createdAt),
    expiresAt: Number(hash.expiresAt),
  };
}

/**
 * Files in Redis: per key, a sorted set of its files by expiry, and per file a metadata hash and its
 * bytes, all three in the key's hash slot (one script stores a file; a Cluster keeps them together)
 * and expiring with the file.
 */
export class RedisFileStore implements FileStore {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly maxFilesPerKey: number,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  async put(owner: string, file: StoredFile, content: string): Promise<boolean> {
    const k = this.keys;
    const meta = Object.entries(file).flatMap(([field, value]) => [field, String(value)]);
    const stored = await this.scripts.put(
      k.filesOfApiKey(owner),
      k.file(owner, file.id),
      k.fileContent(owner, file.id),
      Date.now(),
      this.maxFilesPerKey,
      file.id,
      file.expiresAt,
      content,
      ...meta,
    );
    return stored === 1;
  }

  async get(owner: string, fileId: string): Promise<StoredFile | null> {
    return fromHash(fileId, await this.redis.hgetall(this.keys.file(owner, fileId)));
  }

  async content(owner: string, fileId: string): Promise<string | null> {
    return this.redis.get(this.keys.fileContent(owner, fileId));
  }

  async list(owner: string, query: FileListQuery): Promise<{ files: StoredFile[]; hasMore: boolean }> {
    // At most the cap of files per key: read whole, sorted here by creation (the set is by expiry).
    const ids = await this.redis.zrangebyscore(this.keys.filesOfApiKey(owner), Date.now(), "+inf");
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.file(owner, id));
    const hashes = ((await pipeline.exec()) ?? []).map(([, hash]) => hash as Record<string, string>);
    const live = ids.flatMap((id, i) => fromHash(id, hashes[i] ?? {}) ?? []);
    const ordered = live
      .filter((file) => query.purpose === undefined || file.purpose === query.purpose)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    if (query.order === "desc") ordered.reverse();
    const from = query.after === undefined ? 0 : ordered.findIndex((file) => file.id === query.after) + 1;
    const page = ordered.slice(from, from + query.limit);
    return { files: page, hasMore: from + query.limit < ordered.length };
  }

  async delete(owner: string, fileId: string): Promise<boolean> {
    const k = this.keys;
    const [[, removed] = []] =
      (await this.redis
        .multi()
        .zrem(k.filesOfApiKey(owner), fileId)
        .del(k.file(owner, fileId), k.fileContent(owner, fileId))
        .exec()) ?? [];
    return removed === 1;
  }
}
