import type { SubmitResponse } from "@chorus/contracts";
import type { BenchStack } from "../stack/bench-stack.js";
import { httpJson } from "../stack/net.js";
import type { LoadSpec } from "./autocannon.js";

/** A small valid request for the `default` model (short reply, so the real worker's jobs are cheap). */
export const BENCH_REQUEST = {
  messages: [{ role: "You", content: "Tell me a short story about a brave cat.", index: 0 }],
  samplingParams: { max_tokens: 16 },
};

/** Submits BENCH_REQUEST to `url` (the gateway's or a baseline's submit path); the new request's id. */
export async function submitBenchRequest(url: string, headers: Record<string, string>): Promise<string> {
  const res = await httpJson("POST", url, headers, BENCH_REQUEST);
  const id = (res.body as Partial<SubmitResponse>).id;
  if (res.status !== 200 || typeof id !== "string")
    throw new Error(`submit to ${url} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

/** BENCH_REQUEST submitted to the gateway with the bench key. */
export function submitToGateway(stack: BenchStack): Promise<string> {
  return submitBenchRequest(`${stack.gateway.url}/api/text/default`, auth(stack));
}

const json = { "content-type": "application/json" };
const auth = (stack: BenchStack) => ({ authorization: `Bearer ${stack.apiKey}` });

export function gatewaySubmit(stack: BenchStack): LoadSpec {
  return {
    url: `${stack.gateway.url}/api/text/default`,
    method: "POST",
    headers: { ...auth(stack), ...json },
    body: JSON.stringify(BENCH_REQUEST),
    serverPid: stack.gateway.child.pid,
  };
}

export function baselineSubmit(stack: BenchStack): LoadSpec {
  return {
    url: `${stack.minimalEnqueue.url}/enqueue`,
    method: "POST",
    headers: json,
    body: JSON.stringify(BENCH_REQUEST),
    serverPid: stack.minimalEnqueue.child.pid,
  };
}

/** A server answering the gateway's status path with the bench key: the gateway, or a status step. */
export interface StatusServer {
  url: string;
  pid: number | undefined;
}

export function gatewayStatus(
  stack: BenchStack,
  id: string,
  server: StatusServer = { url: stack.gateway.url, pid: stack.gateway.child.pid },
): LoadSpec {
  return { url: `${server.url}/api/v2/status/${id}`, method: "GET", headers: auth(stack), serverPid: server.pid };
}

export function baselineStatus(stack: BenchStack, id: string): LoadSpec {
  return {
    url: `${stack.minimalStatus.url}/status/${id}`,
    method: "GET",
    headers: {},
    serverPid: stack.minimalStatus.child.pid,
  };
}
