import { describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import winston from "winston";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";

/** A JSON logger at `level` whose lines land in `lines`, as the gateway writes them to stdout. */
function capturingLogger(level: string, lines: Record<string, unknown>[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return winston.createLogger({
    level,
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
}

async function submitAndPoll(gw: TestGateway): Promise<{ id: string; key: string }> {
  const key = await gw.createKey();
  const submitted = await request(gw.app)
    .post("/api/text/default")
    .auth(key, { type: "bearer" })
    .send(defaultRequest());
  expect(submitted.status).toBe(200);
  expect(
    (
      await request(gw.app)
        .get(`/api/v2/status/${submittedId(submitted)}`)
        .auth(key, { type: "bearer" })
    ).status,
  ).toBe(200);
  return { id: submittedId(submitted), key };
}

describe("logging on the request path", () => {
  it("when LOG_LEVEL is info (the default), then accepted submissions and polls write no line", async () => {
    const lines: Record<string, unknown>[] = [];
    const gw = await startTestGateway(uniquePrefix("log-info"), {}, undefined, capturingLogger("info", lines));
    try {
      await submitAndPoll(gw);
      expect(lines).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it("when LOG_LEVEL is http, then each request gets an access line and an accepted submission names its job, never the key or the messages", async () => {
    const lines: Record<string, unknown>[] = [];
    const gw = await startTestGateway(uniquePrefix("log-http"), {}, undefined, capturingLogger("http", lines));
    try {
      const { id, key } = await submitAndPoll(gw);
      expect(lines.filter((l) => l.message === "text request accepted")).toEqual([
        expect.objectContaining({ level: "http", jobId: id, model: "default", requestId: expect.any(String) }),
      ]);
      const access = lines.filter((l) => l.message === "request");
      expect(access.map((l) => [l.method, l.path, l.status])).toEqual([
        ["POST", "/api/text/default", 200],
        ["GET", `/api/v2/status/${id}`, 200],
      ]);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(key);
      expect(text).not.toMatch(/Bearer|authorization/i);
      expect(text).not.toContain(defaultRequest().messages[0]!.content);
    } finally {
      await gw.close();
    }
  });
});
