import type { FetchLike } from "./transport.js";

export interface SentRequest {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

/** A fetch that answers from a script, one entry per call, and records what was sent. */
export function scriptedFetch(script: ((request: SentRequest) => Response | Promise<Response>)[]): {
  fetch: FetchLike;
  sent: SentRequest[];
} {
  const sent: SentRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request = { url, init, headers: { ...(init.headers as Record<string, string>) } };
    sent.push(request);
    const next = script[sent.length - 1];
    if (!next) throw new Error(`unexpected request ${sent.length}: ${url}`);
    return next(request);
  };
  return { fetch, sent };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const envelope = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(
    status,
    { error: { code, message: `${code} happened` }, status: "error", timestamp: "2026-01-01T00:00:00Z" },
    headers,
  );

export const networkError = () => () => Promise.reject(new TypeError("fetch failed"));

/**
 * An SSE answer made of `chunks`, then: `end` closes the body, `break` errors it (a dropped
 * connection), `hang` sends nothing more until the request is aborted.
 */
export const sse =
  (chunks: string[], then: "end" | "break" | "hang" = "end") =>
  (request: SentRequest) => {
    const encoder = new TextEncoder();
    let sentChunks = 0;
    // Pulled a chunk at a time: an error raised at once would discard the chunks still queued.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks[sentChunks++];
        if (chunk !== undefined) return controller.enqueue(encoder.encode(chunk));
        if (then === "end") controller.close();
        if (then === "break") controller.error(new TypeError("terminated"));
        if (then === "hang")
          request.init.signal?.addEventListener("abort", () => controller.error(request.init.signal?.reason));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } });
  };

export const statusEvent = (rev: number, record: object) =>
  `event: status\nid: ${rev}\ndata: ${JSON.stringify(record)}\n\n`;
