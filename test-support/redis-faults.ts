import { startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { waitFor } from "./wait-for.js";

/** A fault a private Redis is put into and taken out of, as a failover, a full memory or a stall would. */
export interface RedisFault {
  readonly name: string;
  /** Whether clients get an error (READONLY, OOM) rather than a wait (a pause). */
  readonly errors: boolean;
  inject(): Promise<void>;
  lift(): Promise<void>;
}

/** Out of memory under noeviction: Redis refuses every command that may grow memory (SET, scripts' writes). */
function outOfMemory(admin: RedisClient): RedisFault {
  return {
    name: "OOM",
    errors: true,
    inject: async () => {
      await admin.config("SET", "maxmemory-policy", "noeviction");
      await admin.config("SET", "maxmemory", "1");
    },
    lift: async () => void (await admin.config("SET", "maxmemory", "0")),
  };
}

/** Writes paused (CLIENT PAUSE WRITE): commands that write wait until the pause ends. */
function paused(admin: RedisClient, ms: number): RedisFault {
  return {
    name: "CLIENT PAUSE",
    errors: false,
    inject: async () => void (await admin.call("CLIENT", "PAUSE", String(ms), "WRITE")),
    lift: async () => void (await admin.call("CLIENT", "UNPAUSE")),
  };
}

async function linkUp(replica: RedisClient): Promise<void> {
  await waitFor("the replica's link to its master", async () =>
    (await replica.info("replication")).includes("master_link_status:up"),
  );
}

/**
 * READONLY as in a failover: the server the workers use becomes a replica of its own replica, which
 * was promoted with every key it had (a partial resync, so no data is lost), and back again.
 */
function readOnly(admin: RedisClient, spare: RedisClient, ports: { main: number; spare: number }): RedisFault {
  return {
    name: "READONLY",
    errors: true,
    inject: async () => {
      await admin.call("WAIT", "1", "5000");
      await spare.call("REPLICAOF", "NO", "ONE");
      await admin.call("REPLICAOF", "127.0.0.1", String(ports.spare));
    },
    lift: async () => {
      await admin.call("REPLICAOF", "NO", "ONE");
      await spare.call("REPLICAOF", "127.0.0.1", String(ports.main));
      await linkUp(spare);
    },
  };
}

export type FaultName = "READONLY" | "OOM" | "CLIENT PAUSE";

/** A private redis-server on `port` (and its replica on `port + 1`, for READONLY), and its faults. */
export interface FaultyRedis {
  url: string;
  fault(name: FaultName): RedisFault;
  stop(): Promise<void>;
}

export async function startFaultyRedis(port: number, pauseMs = 5000): Promise<FaultyRedis> {
  const main = await startPrivateRedis([], { port });
  const spareServer: PrivateRedis = await startPrivateRedis(["--replicaof", "127.0.0.1", String(port)], {
    port: port + 1,
  });
  const admin = createWorkerRedis(main.url);
  const spare = createWorkerRedis(spareServer.url);
  await linkUp(spare);
  const faults: Record<FaultName, RedisFault> = {
    READONLY: readOnly(admin, spare, { main: port, spare: port + 1 }),
    OOM: outOfMemory(admin),
    "CLIENT PAUSE": paused(admin, pauseMs),
  };
  return {
    url: main.url,
    fault: (name) => faults[name],
    stop: async () => {
      admin.disconnect();
      spare.disconnect();
      await Promise.all([main.stop(), spareServer.stop()]);
    },
  };
}
