import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI, { type ClientOptions } from "openai";
import request from "supertest";
import { startTestGateway, type TestGateway } from "./gateway.js";
import { uniquePrefix } from "./redis.js";
import { startTestWorker, type LlmEngine, type TestWorker } from "./worker.js";

type KeyLimits = NonNullable<NonNullable<Parameters<TestGateway["createKey"]>[0]>["limits"]>;

/** A key whose budgets no test of the /v1 door reaches. */
export const UNBOUNDED_LIMITS = { text: 1_000_000, status: 1_000_000 } as const;

export interface OpenAiStackOptions {
  /** The worker's settings beyond the test worker's (concurrency, time limit, models…). */
  worker?: Parameters<typeof startTestWorker>[2];
  /** The key's limits (default: UNBOUNDED_LIMITS); null: a key with the default limits. */
  limits?: KeyLimits | null;
  /** The client's settings beyond baseURL and apiKey (default: no retries). */
  client?: Omit<ClientOptions, "baseURL" | "apiKey">;
}

/** A gateway listening on a loopback port, a worker on `engine`, a key, and the official openai client on /v1. */
export interface OpenAiStack {
  gw: TestGateway;
  worker: TestWorker;
  engine: LlmEngine;
  server: Server;
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  key: string;
  client: OpenAI;
  /** The native record (GET /api/v2/status/{id}) of a request, by its request id. */
  nativeRecord(requestId: string): Promise<StatusRecord>;
  /** Stops the server, the worker, the engine and the gateway. */
  close(): Promise<void>;
}

/** A gateway's app on a loopback port of the kernel's choice: its /v1 base URL. */
export async function listenOnLoopback(app: TestGateway["app"]): Promise<{ server: Server; baseURL: string }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/**
 * The live stack the /v1 tests drive with the official openai client: the real gateway (its Redis
 * keys under a prefix of `name`) and worker in this process, on the engine given, owned by the stack.
 */
export async function startOpenAiStack(
  name: string,
  engine: LlmEngine,
  options: OpenAiStackOptions = {},
): Promise<OpenAiStack> {
  const prefix = uniquePrefix(name);
  const gw = await startTestGateway(prefix);
  const worker = await startTestWorker(prefix, engine, options.worker);
  const { server, baseURL } = await listenOnLoopback(gw.app);
  const limits = options.limits === undefined ? UNBOUNDED_LIMITS : options.limits;
  const key = await gw.createKey(limits ? { limits } : undefined);
  const client = new OpenAI({ maxRetries: 0, ...options.client, baseURL, apiKey: key });
  const nativeRecord = async (requestId: string): Promise<StatusRecord> => {
    const res = await request(gw.app).get(`/api/v2/status/${requestId}`).auth(key, { type: "bearer" });
    if (res.status !== 200) throw new Error(`GET /api/v2/status/${requestId} answered ${res.status}`);
    return res.body as StatusRecord;
  };
  const close = async (): Promise<void> => {
    await new Promise((resolve) => server.close(resolve));
    await worker.close();
    await engine.close();
    await gw.close();
  };
  return { gw, worker, engine, server, baseURL, key, client, nativeRecord, close };
}
