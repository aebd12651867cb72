import { createServer, type RequestListener, type Server } from "node:http";
import type { GatewayConfig } from "./config.js";

export type HttpTimeouts = Pick<
  GatewayConfig,
  "HTTP_HEADERS_TIMEOUT_MS" | "HTTP_REQUEST_TIMEOUT_MS" | "HTTP_KEEP_ALIVE_TIMEOUT_MS"
>;

/**
 * How often Node looks for requests past their headers or request timeout. Its default, 30 s, is
 * the granularity of both timeouts: a slow client would get up to 30 s more than configured.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The gateway's HTTP server (main.ts listens on it; tests do too, for the same settings). Node's
 * headers and request timeouts bound only the time to *receive* a request, so they cut slow
 * senders (slowloris) and never a long answer: a status stream, a `Prefer: wait` hold, a speech
 * request waiting for its audio. For the same reason no socket inactivity timeout
 * (`server.timeout`) is set: a hold writes nothing for up to TTS_TIMEOUT_MS.
 */
export function createHttpServer(app: RequestListener, timeouts: HttpTimeouts): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: timeouts.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    app,
  );
  server.keepAliveTimeout = timeouts.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
