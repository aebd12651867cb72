import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { QUEUES } from "@chorus/contracts";
import { Queue } from "bullmq";
import { ApiKeyStore, WebhookSecrets } from "@chorus/platform/api-keys";
import { createWorkerRedis, redisKeys, type RedisTarget } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { createWebhookQueue, WebhookBreakers, WebhookOutbox, WebhookTurns } from "@chorus/platform/webhooks";
import { createWebhookWorker, WebhookSender, type WorkerDeps } from "@chorus/worker";
import { waitFor } from "./wait-for.js";
import { testLogger } from "./logger.js";
import { TEST_REDIS } from "./redis.js";

/** A fresh Standard Webhooks secret. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** The receiver's URL for `path`, on `host` (127.0.0.1 by default). */
  url(path: string, host?: string): string;
  received: ReceivedWebhook[];
  /** What arrived on `path`. */
  on(path: string): ReceivedWebhook[];
  close(): Promise<void>;
}

/** A status for `startWebhookReceiver` that means: read the request, never answer it. */
export const NEVER_ANSWER = 0;

/**
 * A local HTTP server that records every POST and answers with `status(path, nth)` (nth: 1 for the first on that path).
 */
export async function startWebhookReceiver(status: (path: string, nth: number) => number): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const on = (path: string) => received.filter((r) => r.path === path);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const code = status(path, on(path).length);
      if (code === NEVER_ANSWER) return;
      // A redirect points at a path that records what reaches it: a followed redirect would show there.
      res.writeHead(code, code >= 300 && code < 400 ? { location: `${path}-redirected` } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path, host = "127.0.0.1") => `http://${host}:${port}${path}`,
    received,
    on,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceiverConnection {
  /** Whether a request came on it (undici may open one it never uses). */
  requested: boolean;
  /** Resolves when the client closes it (the receiver never does). */
  closed: Promise<void>;
}

export interface DribblingReceiver {
  url(path: string): string;
  /** Every connection accepted, in order. */
  connections: ReceiverConnection[];
  close(): Promise<void>;
}

/**
 * A receiver that would take a minute to answer: once a request arrives it writes a raw HTTP answer
 * one byte every `everyMs`. `headers` dribbles the status line and headers (200 bytes of them);
 * `body` sends the headers at once, then a 200-byte body a byte at a time.
 */
export async function startDribblingReceiver(mode: "headers" | "body", everyMs = 300): Promise<DribblingReceiver> {
  const slow = "a".repeat(200);
  const head =
    mode === "headers"
      ? `HTTP/1.1 200 OK\r\nx-slow: ${slow}\r\ncontent-length: 0\r\n\r\n`
      : "HTTP/1.1 200 OK\r\ncontent-length: 200\r\n\r\n";
  const connections: ReceiverConnection[] = [];
  const server = createTcpServer((socket) => {
    const connection: ReceiverConnection = {
      requested: false,
      closed: new Promise((resolve) => socket.on("close", () => resolve())),
    };
    connections.push(connection);
    socket.on("error", () => undefined);
    let timer: NodeJS.Timeout | undefined;
    socket.once("data", () => {
      connection.requested = true;
      if (mode === "body") socket.write(head);
      const dribbled = mode === "headers" ? head : slow;
      let sent = 0;
      timer = setInterval(() => {
        const next = dribbled[sent++];
        if (next === undefined) clearInterval(timer);
        else socket.write(next);
      }, everyMs);
    });
    socket.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** How the delivery job of `id` ended (waits for it to end, bounded). */
export async function deliveryEnd(deliveries: Queue, id: string): Promise<{ state: string; failedReason?: string }> {
  // The state first, the job after: a job read before it ended would carry no failedReason yet.
  const state = await waitFor(
    `the delivery of ${id} to end`,
    async () => {
      const now = await deliveries.getJobState(id);
      return now === "completed" || now === "failed" ? now : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 25 },
  );
  return { state, failedReason: (await deliveries.getJob(id))?.failedReason };
}

export interface WebhookWorkerSettings {
  /** The deployment's WEBHOOK_SECRET (signs for keys without their own); absent: none. */
  secret?: string;
  allowPrivate: boolean;
  attempts: number;
  backoffMs: number;
  /** The sender's deadline for a whole attempt (default 5 s). */
  timeoutMs?: number;
  /** Deliveries at once (default 4). */
  concurrency?: number;
  /** The DNS servers host names are looked up on, and the lookup's deadline (default: the system's, 3 s). */
  dns?: { servers?: string[]; timeoutMs: number };
  /** The circuit breaker: failures in a row that pause an address, and the pause (default 5, 60 s). */
  breaker?: { failures: number; pauseMs: number };
}

/**
 * What startTestWorker needs to queue and deliver webhooks as main.ts sets it up: a status store
 * that queues the delivery of the records it finishes, and the delivery worker's sender.
 */
export function webhookWorkerOverrides(
  prefix: string,
  settings: WebhookWorkerSettings,
  redis: string | RedisTarget = TEST_REDIS,
): { overrides: Partial<WorkerDeps>; close(): Promise<void> } {
  const connection = createWorkerRedis(redis);
  const keys = redisKeys(prefix);
  const queue = createWebhookQueue(connection, keys);
  const turns = new WebhookTurns(connection, keys, 3600_000);
  const outbox = new WebhookOutbox(queue, turns, settings, testLogger("webhooks"));
  const timeoutMs = settings.timeoutMs ?? 5000;
  const sender = new WebhookSender({
    allowPrivate: settings.allowPrivate,
    timeoutMs,
    ...(settings.dns && { dns: settings.dns }),
  });
  const secrets = new WebhookSecrets(connection, keys);
  const { failures, pauseMs } = settings.breaker ?? { failures: 5, pauseMs: 60_000 };
  const webhooks = {
    sender,
    signingSecrets: (keyId: string) => secrets.signingSecrets(keyId, settings.secret),
    turns,
    breakers: new WebhookBreakers(connection, keys, { failures, pauseMs, trialLeaseMs: timeoutMs + 1000 }),
    concurrency: settings.concurrency ?? 4,
  };
  return {
    overrides: { statuses: new StatusStore(connection, keys, 3600, outbox), webhooks },
    close: async () => {
      await queue.close();
      connection.disconnect();
    },
  };
}

export interface GatedReceiver {
  url(path: string): string;
  /** The path of every POST, in the order they arrived. */
  arrivals: string[];
  /** POSTs that arrived and are not answered yet. */
  held(): number;
  /** Answers the oldest POST held with `status`. */
  releaseOne(status?: number): void;
  close(): Promise<void>;
}

/** A receiver that holds every POST until the test releases it: a slow receiver whose pace the test sets. */
export async function startGatedReceiver(): Promise<GatedReceiver> {
  const arrivals: string[] = [];
  const waiting: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.push(req.url ?? "/");
      waiting.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    held: () => waiting.length,
    releaseOne: (status = 204) => void waiting.shift()?.writeHead(status).end(),
    close: () => {
      for (const res of waiting.splice(0)) res.writeHead(204).end();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface FakeDnsServer {
  /** `127.0.0.1:port`, for Resolver.setServers. */
  address: string;
  close(): Promise<void>;
}

/**
 * A DNS server on a local UDP port: it answers an A query for a name in `answers` with its IPv4
 * address, an AAAA query for one with no address, and never answers anything else (a name whose
 * servers are down).
 */
export async function startFakeDnsServer(answers: Record<string, string>): Promise<FakeDnsServer> {
  const socket = createSocket("udp4");
  socket.on("message", (query, from) => {
    const { name, end } = questionOf(query);
    const address = answers[name.toLowerCase()];
    if (address === undefined) return; // never answers
    const type = query.readUInt16BE(end);
    const record =
      type === 1
        ? Buffer.concat([
            Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]),
            Buffer.from(address.split(".").map(Number)),
          ])
        : Buffer.alloc(0);
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(record.length > 0 ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    socket.send(Buffer.concat([header, query.subarray(12, end + 4), record]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The question's name and the offset of its type field. */
function questionOf(query: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  for (let length = query[at] ?? 0; length > 0; length = query[at] ?? 0) {
    labels.push(query.subarray(at + 1, at + 1 + length).toString("ascii"));
    at += length + 1;
  }
  return { name: labels.join("."), end: at + 1 };
}

/** A request of `keyId` whose record turns final (an error) with a webhook: its delivery is queued as in production. */
export async function finishWithWebhook(statuses: StatusStore, id: string, keyId: string, url: string): Promise<void> {
  await statuses.create(id, keyId, "default", Date.now(), { url });
  await statuses.fail(id, "the test ended it");
}

/**
 * The real delivery worker on `prefix` (webhookWorkerOverrides' settings, attempts 1 unless given),
 * with the status store whose outbox queues deliveries as in production, and the key store.
 */
export function startDeliveryWorker(prefix: string, settings: Partial<WebhookWorkerSettings> = {}) {
  const keys = redisKeys(prefix);
  const hooks = webhookWorkerOverrides(prefix, { allowPrivate: true, attempts: 1, backoffMs: 50, ...settings });
  const connection = createWorkerRedis(TEST_REDIS);
  const statuses = hooks.overrides.statuses as StatusStore;
  const webhooks = hooks.overrides.webhooks!;
  const worker = createWebhookWorker({ connection, keys, statuses, logger: testLogger("worker"), ...webhooks });
  const deliveries = new Queue(QUEUES.webhooks, { connection, prefix: keys.bullPrefix(QUEUES.webhooks) });
  return {
    keys,
    connection,
    statuses,
    worker,
    deliveries,
    turns: webhooks.turns,
    apiKeys: new ApiKeyStore(connection, keys),
    close: async () => {
      await worker.close();
      await deliveries.close();
      connection.disconnect();
      await hooks.close();
    },
  };
}
