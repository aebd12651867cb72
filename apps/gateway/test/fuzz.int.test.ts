import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { once } from "node:events";
import type { Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import request from "supertest";
import Transport from "winston-transport";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { fuzzCases, type FuzzCase, type FuzzContext } from "../../../test-support/fuzz-inputs.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";

// FUZZ_SEED reproduces a run; the count and the concurrency keep the file well under a minute.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_COUNT ?? 3000);
const CONCURRENCY = 16;
const ANSWER_TIMEOUT_MS = 10_000;
/** After this many hangs the storm stops: the verdict is clear and the run stays short. */
const MAX_HANGS = CONCURRENCY;

/** The error-code table of docs/api.md: every 4xx/5xx body carries one of these, with its status. */
const README_CODES: Record<string, number> = {
  INVALID_PARAMETER: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STACK_TRACE = [/\n\s+at /, /\bat [\w$.<>]+ \(/, /[\w/.-]+\.(?:ts|js|mjs|cjs):\d+:\d+/, /node_modules\//];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One connection per request: write the bytes, read until the server closes (every request asks it to). */
function exchange(port: number, fuzz: FuzzCase): Promise<{ data: Buffer; timedOut: boolean; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect({ host: "127.0.0.1", port });
    const finish = (timedOut: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), timedOut, error });
    };
    const timer = setTimeout(() => finish(true), ANSWER_TIMEOUT_MS);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => finish(false));
    socket.on("connect", () => {
      socket.write(fuzz.bytes);
      if (fuzz.halfClose) socket.end();
    });
  });
}

/** The complete responses in `data` (interim 1xx left out); a HEAD answer has no body. */
function parseAnswers(data: Buffer, head: boolean): { answers: Answer[]; leftover: number } {
  const answers: Answer[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const [statusLine = "", ...lines] = data.subarray(at, end).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    if (Number.isNaN(status)) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = end + 4;
    const bodyless = (head && answers.length === 0) || status < 200 || status === 204 || status === 304;
    const length = bodyless
      ? 0
      : headers["content-length"] !== undefined
        ? Number(headers["content-length"])
        : data.length - at;
    if (at + length > data.length) break;
    if (status >= 200) answers.push({ status, headers, body: data.subarray(at, at + length) });
    at += length;
  }
  return { answers, leftover: data.length - at };
}

/** An answer's body as parsed: nothing in it is trusted, each check tests the type of what it reads. */
interface Parsed {
  id?: unknown;
  tokens?: unknown;
  status?: unknown;
  timestamp?: unknown;
  error?: {
    code?: unknown;
    message?: unknown;
    details?: {
      errorId?: unknown;
      parameter?: unknown;
      expected_type?: unknown;
      problems?: { parameter?: unknown; expected_type?: unknown; message?: unknown }[];
    };
  };
}

/** A value from an answer as text, for a problem's label: a string as it is, anything else as JSON. */
const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function parsed(text: string): Parsed | undefined {
  try {
    return text === "" ? undefined : (JSON.parse(text) as Parsed);
  } catch {
    return undefined;
  }
}

/** What is wrong with one answer the app made; empty when it keeps every promise. */
function problemsWith(answer: Answer, headRequest: boolean): string[] {
  const problems: string[] = [];
  const text = answer.body.toString("utf8");
  const json = parsed(text);
  const code = json?.error?.code;
  const cause =
    causes.byId.get(String(json?.error?.details?.errorId)) ??
    (answer.status >= 500 ? causes.byId.get(answer.headers["x-request-id"] ?? "") : undefined);
  const message = cause
    ? `server log: ${cause}`
    : asText(json?.error?.message ?? text)
        .replace(UUID, "<uuid>")
        .slice(0, 160);
  const label = `${answer.status}${code ? ` ${asText(code)}` : ""}: ${message}`;
  const speechOff =
    answer.status === 503 &&
    code === "SERVICE_UNAVAILABLE" &&
    /text-to-speech is not enabled/.test(String(json?.error?.message));
  if (answer.status >= 500 && !speechOff) problems.push(`5xx answer ${label}`);
  const trace = STACK_TRACE.find((pattern) => pattern.test(text));
  if (trace) problems.push(`stack trace or file path in body (${trace}): ${text.slice(0, 200)}`);
  if (answer.status >= 400 && !headRequest) {
    if (!/^application\/json\b/.test(answer.headers["content-type"] ?? ""))
      problems.push(`error answer not application/json (${answer.headers["content-type"] ?? "none"}) ${label}`);
    const keysOk = json && typeof json === "object" && Object.keys(json).sort().join() === "error,status,timestamp";
    const error = json?.error;
    const errorKeysOk =
      error && typeof error === "object" && Object.keys(error).every((k) => ["code", "message", "details"].includes(k));
    if (!keysOk || !errorKeysOk || json.status !== "error")
      problems.push(`not the error envelope: ${label} body ${text.slice(0, 200)}`);
    else {
      if (README_CODES[String(code)] !== answer.status)
        problems.push(`code ${String(code)} is not docs/api.md's code for ${answer.status}`);
      if (answer.status === 405 && !answer.headers.allow) problems.push("405 without an Allow header");
      if (typeof error.message !== "string" || error.message === "")
        problems.push(`envelope without a message: ${label}`);
      if (
        error.details !== undefined &&
        (typeof error.details !== "object" || error.details === null || Array.isArray(error.details))
      )
        problems.push(`details is not an object: ${label}`);
      if (
        code === "INVALID_PARAMETER" &&
        (typeof error.details?.parameter !== "string" || typeof error.details?.expected_type !== "string")
      )
        problems.push(`INVALID_PARAMETER without details.parameter/expected_type: ${label}`);
      const listed = error.details?.problems?.[0];
      if (
        code === "INVALID_PARAMETER" &&
        (listed?.parameter !== error.details?.parameter ||
          listed?.expected_type !== error.details?.expected_type ||
          listed?.message !== error.message)
      ) {
        problems.push(
          `INVALID_PARAMETER whose details.problems does not start with the problem it describes: ${label}`,
        );
      }
      if (
        typeof json.timestamp !== "string" ||
        !ISO.test(json.timestamp) ||
        new Date(json.timestamp).toISOString() !== json.timestamp
      )
        problems.push(`timestamp not ISO 8601: ${asText(json.timestamp)}`);
    }
  }
  // A submit answer (a status record also has `tokens`, but always with `status`).
  if (answer.status === 200 && json && typeof json === "object" && "tokens" in json && !("status" in json)) {
    if (!(
      typeof json.id === "string" &&
      /^[0-9a-f-]{36}$/.test(json.id) &&
      json.tokens === -1 &&
      Object.keys(json).length === 2
    ))
      problems.push(`submit answer is not {id, tokens: -1}: ${text.slice(0, 200)}`);
  }
  return problems;
}

/**
 * The first line of each unexpected error the gateway logs, by the errorId its 500 answer carries
 * and by request id (a HEAD answer has no body): it names the cause, so failures group by bug.
 */
class ErrorCauses extends Transport {
  readonly byId = new Map<string, string>();
  override log(info: { errorId?: string; requestId?: string; error?: unknown }, done: () => void): void {
    const cause = String(info.error)
      .split("\n")[0]!
      .replace(/'[^']*'/g, "'…'");
    for (const id of [info.errorId, info.requestId]) if (id) this.byId.set(id, cause);
    done();
  }
}
const causes = new ErrorCauses({ level: "error" });

interface Summary {
  seed: number;
  requests: number;
  appAnswers: number;
  statuses: Record<string, number>;
  nodeParserAnswers: Record<string, number>;
  closedWithoutAnswer: number;
  /** Only protocol-level garbage may be dropped without an answer; by generator. */
  closedByKind: Record<string, number>;
  hangs: number;
  /** 5xx other than the documented speech-off 503. */
  fiveXX: number;
  speechOff503: number;
  byKind: Record<string, number>;
  elapsedMs: number;
}

const count = (counts: Record<string, number>, key: string | number) => (counts[key] = (counts[key] ?? 0) + 1);
const preview = (bytes: Buffer) =>
  `${JSON.stringify(bytes.subarray(0, 700).toString("latin1"))}${bytes.length > 700 ? ` …(${bytes.length} bytes)` : ""}`;

let gw: TestGateway;
let server: Server;
let port: number;
let good: string;
let ctx: FuzzContext;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("fuzz"), { TTS_ENABLED: "false", AUTH_FAILURE_LIMIT: "1000000" });
  server = gw.app.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  // The test logger is silent unless TEST_LOGS=1; only this transport listens then.
  if (gw.deps.logger.silent) gw.deps.logger.clear();
  gw.deps.logger.silent = false;
  gw.deps.logger.add(causes);
  ctx = await fuzzContext();
  good = ctx.keys.good;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

async function fuzzContext(): Promise<FuzzContext> {
  const limits = { text: 1_000_000, tts: 1_000_000, status: 1_000_000 };
  const good = await gw.createKey({ limits });
  const other = await gw.createKey({ limits });
  const revoked = await gw.deps.apiKeys.create("revoked", ["*"], limits);
  await gw.deps.apiKeys.revokeById(revoked.record.id);
  const submit = async (key: string) =>
    submittedId(await request(server).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest()));
  const [processing, completed, foreign] = [await submit(good), await submit(good), await submit(other)];
  await gw.deps.statuses.complete(completed, {
    reply: "done",
    tokens: 1,
    promptTokens: 1,
    cachedTokens: 0,
    processingTime: 0.1,
    droppedMessages: 0,
    finishReason: "stop",
    maxTokens: 150,
  });
  return {
    host: `127.0.0.1:${port}`,
    keys: {
      good,
      revoked: revoked.secret,
      textDefaultOnly: await gw.createKey({ scopes: ["text:default"], limits }),
      ttsOnly: await gw.createKey({ scopes: ["tts"], limits }),
    },
    statusIds: [processing, completed, foreign],
  };
}

describe("fuzzing the gateway over HTTP", () => {
  it(`when ${COUNT} random and malformed requests arrive, then none is a 5xx, every error is the envelope, and nothing hangs`, async () => {
    const summary: Summary = {
      seed: SEED,
      requests: 0,
      appAnswers: 0,
      statuses: {},
      nodeParserAnswers: {},
      closedWithoutAnswer: 0,
      closedByKind: {},
      hangs: 0,
      fiveXX: 0,
      speechOff503: 0,
      byKind: {},
      elapsedMs: 0,
    };
    const failures = new Map<
      string,
      { count: number; kinds: string[]; bytes: number; request: string; answer: string }
    >();
    const fail = (fuzz: FuzzCase, problem: string, data: Buffer) => {
      const seen = failures.get(problem) ?? { count: 0, kinds: [], bytes: Infinity, request: "", answer: "" };
      seen.count++;
      if (!seen.kinds.includes(fuzz.kind)) seen.kinds.push(fuzz.kind);
      // The shortest request showing a problem is its reproduction.
      if (fuzz.bytes.length < seen.bytes)
        Object.assign(seen, { bytes: fuzz.bytes.length, request: preview(fuzz.bytes), answer: preview(data) });
      failures.set(problem, seen);
    };

    const judge = async (fuzz: FuzzCase) => {
      summary.requests++;
      count(summary.byKind, fuzz.kind);
      const { data, timedOut, error } = await exchange(port, fuzz);
      if (timedOut) {
        summary.hangs++;
        return fail(fuzz, `no answer and no close within ${ANSWER_TIMEOUT_MS / 1000} s (hang)`, data);
      }
      const { answers } = parseAnswers(data, fuzz.method === "HEAD");
      if (answers.length === 0) {
        summary.closedWithoutAnswer++;
        count(summary.closedByKind, fuzz.kind);
        if (!fuzz.protocolGarbage) fail(fuzz, `connection closed without an answer (${error ?? "clean close"})`, data);
        return;
      }
      answers.forEach((answer, i) => {
        // Every answer of the app carries X-Request-Id (requestContext runs first); node's parser errors do not.
        if (answer.headers["x-request-id"] === undefined) {
          count(summary.nodeParserAnswers, answer.status);
          if (answer.status >= 500) fail(fuzz, `node's HTTP layer answered ${answer.status}`, data);
          if (!fuzz.protocolGarbage)
            fail(fuzz, `node's HTTP parser refused a well-formed request with ${answer.status}`, data);
          return;
        }
        summary.appAnswers++;
        count(summary.statuses, answer.status);
        const problems = problemsWith(answer, fuzz.method === "HEAD" && i === 0);
        if (answer.status >= 500 && problems.some((p) => p.startsWith("5xx"))) summary.fiveXX++;
        else if (answer.status === 503) summary.speechOff503++;
        for (const problem of problems) fail(fuzz, problem, data);
      });
    };

    const cases = fuzzCases(SEED, COUNT, ctx);
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = cases.next(); !next.done && summary.hangs < MAX_HANGS; next = cases.next())
          await judge(next.value);
      }),
    );
    summary.elapsedMs = Date.now() - started;

    console.log(
      `fuzz: seed ${SEED}, ${summary.requests} requests, ${summary.fiveXX} unexpected 5xx (${summary.speechOff503} documented speech-off 503), ` +
        `${summary.closedWithoutAnswer} closed without an answer, ${summary.hangs} hangs, ${Math.round(summary.elapsedMs / 100) / 10} s\n` +
        JSON.stringify(summary, null, 1),
    );
    const report = [...failures].map(([problem, { bytes: _bytes, ...f }]) => ({ problem, ...f }));
    if (report.length > 0) console.log(`fuzz failures (seed ${SEED}):\n${JSON.stringify(report, null, 1)}`);
    expect(report.map((f) => `${f.count}× ${f.problem} (${f.kinds.join(", ")})`)).toEqual([]);
    expect(summary.requests).toBe(COUNT);
  }, 120_000);

  it("when the storm is over, then a normal request is accepted and its status can be polled", async () => {
    const submitted = await request(server)
      .post("/api/text/default")
      .auth(good, { type: "bearer" })
      .send(defaultRequest());
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), tokens: -1 });
    const polled = await request(server)
      .get(`/api/v2/status/${submittedId(submitted)}`)
      .auth(good, { type: "bearer" });
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ status: "processing" });
  });
});
