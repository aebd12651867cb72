import type { Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import request from "supertest";
import { defaultRequest, sleep } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { openStatusStream } from "../../../test-support/sse.js";
import { createHttpServer } from "../src/http-server.js";

/**
 * The gateway's HTTP server as main.ts builds it, with short timeouts so that the tests are quick.
 * Node's own defaults (60 s for headers, 300 s for a request) would fail every bound below.
 */
const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: "1000",
  HTTP_REQUEST_TIMEOUT_MS: "1500",
  HTTP_KEEP_ALIVE_TIMEOUT_MS: "8000",
};
/**
 * Generous: each timeout plus Node's check interval or keep-alive margin is at most 9 s; a loaded machine is slower.
 */
const CUT_WITHIN_MS = 20_000;
/** Longer than the request timeout plus Node's check interval: a cut would have happened by then. */
const PAST_REQUEST_TIMEOUT_MS = 3500;

let gw: TestGateway;
let server: Server;
let port: number;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("http-server"), TIMEOUTS);
  key = await gw.createKey();
  server = createHttpServer(gw.app, gw.config);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

/** A raw connection that records what it receives and when the server closes it. */
function rawClient(): { socket: Socket; opened: number; received: () => string; closed: Promise<number> } {
  const socket = connect(port, "127.0.0.1");
  const opened = Date.now();
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined); // a reset is a close too
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - opened)));
  return { socket, opened, received: () => received, closed };
}

/** Writes one byte a second until the socket closes: a slowloris client. */
async function trickle(socket: Socket, bytes: string): Promise<void> {
  for (const byte of bytes) {
    if (socket.destroyed) return;
    socket.write(byte);
    await sleep(1000);
  }
}

/** When the server closed the connection, or Infinity when it has not within CUT_WITHIN_MS. */
async function withinBound(closed: Promise<number>): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(Infinity), CUT_WITHIN_MS)));
  try {
    return await Promise.race([closed, bound]);
  } finally {
    clearTimeout(timer);
  }
}

describe("gateway HTTP server timeouts", () => {
  it("when a client sends its headers one byte a second, then it gets 408 and is cut off within the headers timeout", async () => {
    const client = rawClient();
    client.socket.write("GET /healthz HTTP/1.1\r\nHost: chorus\r\n");
    void trickle(client.socket, "X-Slow: " + "a".repeat(60));
    expect(await withinBound(client.closed)).toBeLessThan(CUT_WITHIN_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("when a client sends its body one byte a second, then it gets 408 and is cut off within the request timeout", async () => {
    const client = rawClient();
    client.socket.write(
      `POST /api/text/default HTTP/1.1\r\nHost: chorus\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n`,
    );
    void trickle(client.socket, JSON.stringify(defaultRequest()).slice(0, 59));
    expect(await withinBound(client.closed)).toBeLessThan(CUT_WITHIN_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("when a keep-alive connection idles longer than the headers timeout, then its next request is served, and it is closed once idle past the keep-alive timeout", async () => {
    const client = rawClient();
    const ask = "GET /healthz HTTP/1.1\r\nHost: chorus\r\n\r\n";
    client.socket.write(ask);
    await sleep(2000); // idle: longer than the headers timeout, shorter than the keep-alive one
    client.socket.write(ask);
    const lastAsked = Date.now() - client.opened;
    const closed = await withinBound(client.closed);
    expect(client.received().match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
    // The configured 8 s, not Node's default 5 s (Node 20 closes about a second after either).
    expect(closed - lastAsked).toBeGreaterThanOrEqual(7000);
    expect(closed).toBeLessThan(Infinity);
  });

  it("when a Prefer: wait hold lasts longer than the request timeout, then it is answered, not cut", async () => {
    const { id } = (
      await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest())
    ).body as { id: string };
    const asked = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/status/${id}`, {
      headers: { authorization: `Bearer ${key}`, prefer: "wait=4" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("preference-applied")).toBe("wait=4");
    expect(await res.json()).toMatchObject({ status: "processing" }); // no worker: still queued
    expect(Date.now() - asked).toBeGreaterThanOrEqual(PAST_REQUEST_TIMEOUT_MS); // it was held that long
  });

  it("when a status stream stays open longer than the request timeout, then it is not cut", async () => {
    const { id } = (
      await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest())
    ).body as { id: string };
    const stream = await openStatusStream(`http://127.0.0.1:${port}/api/v2/status/${id}`, key);
    await stream.untilEvents(1);
    let ended = false;
    stream.ended.then(
      () => (ended = true),
      () => (ended = true),
    );
    await sleep(PAST_REQUEST_TIMEOUT_MS);
    expect(ended).toBe(false);
    stream.abort();
  });
});
