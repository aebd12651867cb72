import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import type { Queue } from "bullmq";
import { createWorkerRedis, redisKeys, type RedisTarget } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { createWebhookQueue, WebhookOutbox } from "@chorus/platform/webhooks";
import { WebhookSender, type WorkerDeps } from "@chorus/worker";
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
  secret: string;
  allowPrivate: boolean;
  attempts: number;
  backoffMs: number;
  /** The sender's deadline for a whole attempt (default 5 s). */
  timeoutMs?: number;
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
  const outbox = new WebhookOutbox(queue, settings, testLogger("webhooks"));
  const sender = new WebhookSender({
    secret: settings.secret,
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs ?? 5000,
  });
  return {
    overrides: { statuses: new StatusStore(connection, keys, 3600, outbox), webhooks: { sender, concurrency: 4 } },
    close: async () => {
      await queue.close();
      connection.disconnect();
    },
  };
}
