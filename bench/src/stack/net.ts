import { Agent, request } from "node:http";
import { nowMs, sleep } from "../metrics/clock.js";

/** A free TCP port on 127.0.0.1 (the bench only ever talks to loopback). */
export { freePort } from "@chorus/local-runtime";

export interface HttpResult {
  status: number;
  body: unknown;
}

/**
 * Keep-alive, so that the queue row's probes measure requests, not TCP handshakes. An idle socket
 * is dropped after 4 s, before the servers' keep-alive timeout (Node's 5 s) closes it under a
 * request ("socket hang up"): without an agent timeout Node ignores the servers' `Keep-Alive`
 * hint, and a socket idle since the stack's health checks met the first submit of the noisy row.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 });

/** One HTTP request with an optional JSON body; resolves with the status and the parsed JSON body. */
export function httpJson(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<HttpResult> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const allHeaders = payload === undefined ? headers : { ...headers, "content-type": "application/json" };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: parseJson(text) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

export interface TimedDownload {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes of the body as received (the body itself is dropped). */
  bytes: number;
  /** nowMs() when the request was handed to the socket layer, when the body's first and last bytes arrived. */
  sentAt: number;
  firstByteAt: number;
  lastByteAt: number;
  /** The body as text when the status is not 2xx (an error to show). */
  errorText: string;
}

/** A JSON POST whose response body is counted rather than kept, timed to its last byte. */
export function timedPost(url: string, headers: Record<string, string>, body: unknown): Promise<TimedDownload> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sentAt = nowMs();
    const req = request(
      url,
      { method: "POST", headers: { ...headers, "content-type": "application/json" }, agent },
      (res) => {
        const status = res.statusCode ?? 0;
        let bytes = 0;
        let firstByteAt = Number.NaN;
        let errorText = "";
        res.on("data", (chunk: Buffer) => {
          if (bytes === 0) firstByteAt = nowMs();
          bytes += chunk.length;
          if (status >= 300 && errorText.length < 2000) errorText += chunk.toString("utf8");
        });
        res.on("end", () =>
          resolve({ status, headers: res.headers, bytes, sentAt, firstByteAt, lastByteAt: nowMs(), errorText }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Waits until `url` answers 2xx; false after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await httpJson("GET", url).then(
      (r) => r.status >= 200 && r.status < 300,
      () => false,
    );
    if (ok) return true;
    await sleep(50);
  }
  return false;
}

/** Lets the bench's process exit promptly at the end (idle keep-alive sockets would hold it). */
export function closeHttpAgent(): void {
  agent.destroy();
}
