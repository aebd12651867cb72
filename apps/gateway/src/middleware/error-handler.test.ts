import type { RedisClient } from "@chorus/platform/redis";
import { describe, expect, it } from "@jest/globals";
import { ApiError, REQUEST_LIMITS, type ErrorEnvelope } from "@chorus/contracts";
import type { NextFunction, Request, Response } from "express";
import winston from "winston";
import Transport from "winston-transport";
import { errorHandler } from "./error-handler.js";
import { setRequestLogger } from "./request-context.js";

type Logged = { level: string; message: string; errorId?: string };

/** Keeps what the handler logs, so the error id can be matched against the log line. */
class CaptureTransport extends Transport {
  readonly lines: Logged[] = [];
  override log(info: Logged, done: () => void): void {
    this.lines.push(info);
    done();
  }
}

interface Sent {
  status?: number;
  body?: ErrorEnvelope;
  headers: Record<string, string>;
}

function run(error: unknown, redisStatus = "ready") {
  const transport = new CaptureTransport();
  const req = {} as Request;
  setRequestLogger(req, winston.createLogger({ transports: [transport] }));
  const sent: Sent = { headers: {} };
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      sent.headers[name.toLowerCase()] = value;
      return this;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = JSON.parse(JSON.stringify(body)) as ErrorEnvelope;
      return this;
    },
  } as unknown as Response;
  const redis = { status: redisStatus } as unknown as RedisClient;
  errorHandler([redis])(error, req, res, (() => undefined) as NextFunction);
  if (!sent.body) throw new Error("the handler sent no body");
  return { ...sent, body: sent.body, logs: transport.lines };
}

const bodyParserError = (type: string, message = "failed") =>
  Object.assign(new Error(message), { type, status: 400, expose: true });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("errorHandler", () => {
  it("when an ApiError is thrown, then its status and envelope pass through unchanged", () => {
    const { status, body } = run(ApiError.invalidParameter("messages", "array", "messages is required"));
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        code: "INVALID_PARAMETER",
        message: "messages is required",
        details: {
          parameter: "messages",
          expected_type: "array",
          problems: [{ parameter: "messages", expected_type: "array", message: "messages is required" }],
        },
      },
      status: "error",
      timestamp: expect.stringMatching(ISO),
    });
  });

  it("when an ApiError is thrown while Redis is down, then it still passes through", () => {
    const { status, body, headers } = run(new ApiError("NOT_FOUND", "no such model"), "reconnecting");
    expect(status).toBe(404);
    expect(body.error).toEqual({ code: "NOT_FOUND", message: "no such model" });
    expect(headers["retry-after"]).toBeUndefined();
  });

  it("when body-parser reports malformed JSON, then the answer is 400 INVALID_JSON", () => {
    const { status, body } = run(bodyParserError("entity.parse.failed", "Unexpected token } in JSON"));
    expect(status).toBe(400);
    expect(body.error).toEqual({ code: "INVALID_JSON", message: "the request body is not valid JSON" });
  });

  it("when body-parser reports a body too large, then the answer is 413 PAYLOAD_TOO_LARGE naming the limit", () => {
    const { status, body } = run(bodyParserError("entity.too.large", "request entity too large"));
    expect(status).toBe(413);
    expect(body.error).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: `the request body is larger than ${REQUEST_LIMITS.maxBodyBytes} bytes`,
    });
  });

  it("when body-parser reports an unsupported charset, then the answer is 415 UNSUPPORTED_MEDIA_TYPE", () => {
    const { status, body } = run(bodyParserError("charset.unsupported", 'unsupported charset "KOI8-R"'));
    expect(status).toBe(415);
    expect(body.error).toEqual({ code: "UNSUPPORTED_MEDIA_TYPE", message: 'unsupported charset "KOI8-R"' });
  });

  it("when an unknown error is thrown, then the answer is 500 with a logged reference id and no stack trace", () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'secretField')");
    const { status, body, logs } = run(error);
    expect(status).toBe(500);
    const errorId = body.error.details?.errorId;
    expect(errorId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.error).toEqual({
      code: "INTERNAL_ERROR",
      message: `internal error (reference ${String(errorId)})`,
      details: { errorId },
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain("secretField");
    expect(text).not.toMatch(/\bat .+:\d+:\d+/);
    expect(logs).toEqual([expect.objectContaining({ level: "error", errorId })]);
  });

  it("when a non-Error value is thrown, then it also becomes 500 INTERNAL_ERROR", () => {
    const { status, body } = run("just a string");
    expect(status).toBe(500);
    expect(body.error.code).toBe("INTERNAL_ERROR");
  });

  it("when the error looks like a Redis outage, then the answer is 503 with Retry-After", () => {
    const messages = [
      "Connection is closed.",
      "Stream isn't writeable and enableOfflineQueue options is false",
      "connect ECONNREFUSED 127.0.0.1:6379",
      "Command timed out",
      "Redis did not become ready within 3000 ms",
      // A Redis Cluster failing over or moving slots.
      "CLUSTERDOWN The cluster is down",
      "TRYAGAIN Multiple keys request during rehashing of slot",
      "Failed to refresh slots cache.",
      "None of startup nodes is available",
      "Too many Cluster redirections. Last error: Error: Connection is closed.",
    ];
    for (const message of messages) {
      const { status, body, headers } = run(new Error(message));
      expect([message, status, body.error.code, headers["retry-after"]]).toEqual([
        message,
        503,
        "SERVICE_UNAVAILABLE",
        "1",
      ]);
    }
  });

  it("when Redis is not ready, then an otherwise unknown error becomes 503 with Retry-After", () => {
    for (const redisStatus of ["connecting", "reconnecting", "end", "close"]) {
      const { status, body, headers } = run(new Error("something odd"), redisStatus);
      expect([redisStatus, status, body.error.code, headers["retry-after"]]).toEqual([
        redisStatus,
        503,
        "SERVICE_UNAVAILABLE",
        "1",
      ]);
      expect(body.error.message).toBe("the service is temporarily unavailable; retry with exponential backoff");
    }
  });

  it("when any error is handled, then the body says status error with an ISO timestamp", () => {
    const errors: unknown[] = [
      new ApiError("RATE_LIMITED", "slow down"),
      bodyParserError("entity.parse.failed"),
      new Error("boom"),
      new Error("Connection is closed."),
    ];
    for (const error of errors) {
      const { body } = run(error);
      expect(body.status).toBe("error");
      expect(body.timestamp).toMatch(ISO);
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    }
  });
});
