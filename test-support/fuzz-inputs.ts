import { deflateSync, gzipSync } from "node:zlib";
import { MODEL_IDS, REQUEST_LIMITS } from "@chorus/contracts";
import { characterRequest, defaultRequest } from "./fixtures.js";
import { Rng } from "./rng.js";

/**
 * Deterministic inputs for the gateway fuzz test: one seeded PRNG drives every choice, so a seed
 * names a request sequence and a failure reproduces. Requests are whole HTTP/1.1 messages as bytes,
 * because many of the interesting ones cannot be sent through an HTTP client.
 */

export interface FuzzKeys {
  good: string;
  revoked: string;
  textDefaultOnly: string;
  ttsOnly: string;
}

export interface FuzzContext {
  host: string;
  keys: FuzzKeys;
  /** Status ids that exist (the good key's and another key's), so status paths get real hits too. */
  statusIds: readonly string[];
}

export interface FuzzCase {
  /** Which generator made it, for the summary and the bug report. */
  kind: string;
  method: string;
  /** The whole request as it goes on the wire. */
  bytes: Buffer;
  /** Not valid HTTP/1.1: node's own parser may answer it (400/431, no envelope) or just close. */
  protocolGarbage: boolean;
  /** The server would wait for more bytes: close our side after writing. */
  halfClose: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ODD_STRINGS = [
  "",
  " ",
  "\t\n",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e",
  "\u200b",
  "\ufeff",
  "\uffff",
  "😀",
  "e\u0301",
  "../../etc/passwd",
  "%00",
  "%ZZ",
  "<script>",
  "'; DROP TABLE x;--",
  "__proto__",
  "constructor",
  "null",
  "NaN",
  "You",
  "Bot",
  "Witch",
  "default",
  "2026-11-23T10:00:00Z",
  "2026-13-45T99:99:99Z",
  "\\",
  '"',
  "{}",
  "ck_",
] as const;

const ODD_NUMBERS = [
  0,
  -0,
  -1,
  0.5,
  1,
  2,
  2048,
  2049,
  0.1,
  0.09,
  4.01,
  1e21,
  -1e21,
  1.7976931348623157e308,
  5e-324,
  2 ** 53 + 1,
] as const;

/** Number tokens JSON.stringify never writes: some are JSON (1e400 is Infinity to JSON.parse), most are not. */
const NUMBER_TOKENS = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e400",
  "-1e400",
  "1e-400",
  "-0",
  "0x10",
  "01",
  ".5",
  "1.",
  "+1",
  "undefined",
  "1_000",
] as const;

export function oddString(rng: Rng): string {
  return rng.weighted<string>([
    [6, () => rng.pick(ODD_STRINGS)],
    [3, () => Array.from({ length: 1 + rng.int(12) }, () => String.fromCharCode(rng.int(0x10000))).join("")],
    [2, () => Array.from({ length: 1 + rng.int(20) }, () => String.fromCharCode(32 + rng.int(95))).join("")],
    [1, () => "x".repeat(rng.pick([100, 4097, 8001, 70_000]))],
  ]);
}

export function randomJson(rng: Rng, depth = 3): Json {
  return rng.weighted<Json>([
    [2, () => null],
    [2, () => rng.chance(0.5)],
    [3, () => rng.pick(ODD_NUMBERS)],
    [4, () => oddString(rng)],
    [depth > 0 ? 2 : 0, () => Array.from({ length: rng.int(4) }, () => randomJson(rng, depth - 1))],
    [
      depth > 0 ? 2 : 0,
      () =>
        Object.fromEntries(
          Array.from({ length: rng.int(4) }, () => [oddString(rng).slice(0, 20), randomJson(rng, depth - 1)]),
        ),
    ],
  ]);
}

/** Every (container, key) pair inside `root`, to mutate one at random. */
function slots(root: Json, out: [Json[] | { [key: string]: Json }, string | number][] = []) {
  if (Array.isArray(root)) {
    root.forEach((child, i) => {
      out.push([root, i]);
      slots(child, out);
    });
  } else if (root && typeof root === "object") {
    for (const [k, child] of Object.entries(root)) {
      out.push([root, k]);
      slots(child, out);
    }
  }
  return out;
}

function mutateObject(rng: Rng, root: { [key: string]: Json }): void {
  const all = slots(root);
  if (all.length === 0) return void (root.messages = randomJson(rng, 2)); // everything was dropped
  const [parent, key] = rng.pick(all);
  const messages = Array.isArray(root.messages) ? root.messages : null;
  rng.weighted<void>([
    [3, () => (Array.isArray(parent) ? parent.splice(key as number, 1) : delete parent[key])],
    [3, () => ((parent as Record<string | number, Json>)[key] = randomJson(rng, 2))],
    [1, () => ((parent as Record<string | number, Json>)[key] = "x".repeat(rng.pick([8001, 100_000, 500_000])))],
    [
      2,
      () =>
        Array.isArray(parent)
          ? parent.push(randomJson(rng, 1))
          : (parent[rng.pick(["maxTokens", "top_k", "extra", "Messages", oddString(rng)])] = randomJson(rng, 1)),
    ],
    [1, () => messages?.push(...messages.slice(0, 1))],
    [
      1,
      () =>
        messages &&
        (root.messages = Array.from({ length: rng.pick([0, 199, 200, 201]) }, (_, i) => ({
          role: i % 2 ? "Bot" : "You",
          content: `m${i}`,
          index: i,
        }))),
    ],
    [
      1,
      () =>
        messages?.forEach((m) => m && typeof m === "object" && !Array.isArray(m) && (m.index = rng.pick(ODD_NUMBERS))),
    ],
    [
      2,
      () =>
        (root.samplingParams = {
          max_tokens: rng.pick(ODD_NUMBERS),
          temperature: rng.pick(ODD_NUMBERS),
          top_p: rng.pick(ODD_NUMBERS),
        }),
    ],
  ]);
}

/** Edits on the JSON text itself: tokens and keys JSON.stringify cannot produce. */
function mutateText(rng: Rng, text: string): string {
  return rng.weighted<string>([
    [3, () => text.replace(/:(-?\d[\d.eE+-]*)/, () => `:${rng.pick(NUMBER_TOKENS)}`)],
    [1, () => (text.startsWith("{") ? `{"messages":[],${text.slice(1)}` : text)],
    [1, () => (text.endsWith("}") ? `${text.slice(0, -1)},"messages":"dup"}` : text)],
    [
      1,
      () =>
        text.endsWith("}") ? `${text.slice(0, -1)},"__proto__":{"admin":true},"constructor":{"prototype":{}}}` : text,
    ],
    [
      2,
      () =>
        text.replace(
          /"(content|text|botName)":"/,
          (m) =>
            m +
            rng.pick([
              "\\u0000",
              "\\ud800",
              "\\udfff\\ud800",
              "\\u202e",
              "\\uffff",
              "\\uD83D\\uDE00",
              "\\x41",
              "\\u00",
            ]),
        ),
    ],
  ]);
}

function deepNesting(rng: Rng): string {
  const d = rng.pick([1000, 10_000, 50_000]);
  return rng.pick([
    () => "[".repeat(d) + "]".repeat(d),
    () => '{"a":'.repeat(d) + "1" + "}".repeat(d),
    () => `{"messages":${"[".repeat(d)}${"]".repeat(d)}}`,
    () => `{"messages":[{"role":"You","content":"x","index":0,"image":${"[".repeat(d)}${"]".repeat(d)}}]}`,
    () =>
      `{"samplingParams":${'{"a":'.repeat(d)}1${"}".repeat(d)},"messages":[{"role":"You","content":"x","index":0}]}`,
    () => "[".repeat(d),
    () => '{"a":'.repeat(d),
  ])();
}

const INVALID_JSON = [
  "",
  "{",
  "}",
  "{'messages':[]}",
  '{"messages":[],}',
  "[1,2,]",
  "{/*c*/}",
  "\ufeff{}",
  "nul",
  "tru",
  '"unterminated',
  '{"a" 1}',
  "{{}}",
  "1 2",
  "\u0000",
];

/** A body for `base` (a valid request object): mostly mutated, sometimes valid, huge, nested or not JSON. */
export function jsonBody(rng: Rng, base: () => { [key: string]: Json }): string {
  return rng.weighted<string>([
    [12, () => JSON.stringify(base())],
    [
      40,
      () => {
        const body = base();
        for (let n = 1 + rng.int(3); n > 0; n--) mutateObject(rng, body);
        const text = JSON.stringify(body);
        return rng.chance(0.3) ? mutateText(rng, text) : text;
      },
    ],
    [10, () => JSON.stringify(randomJson(rng))],
    [7, () => deepNesting(rng)],
    [
      12,
      () => {
        const text = JSON.stringify(base());
        return rng.chance(0.5) ? text.slice(0, rng.int(text.length)) : rng.pick(INVALID_JSON);
      },
    ],
    [
      2,
      () =>
        JSON.stringify({
          ...base(),
          persona: "p".repeat(REQUEST_LIMITS.maxBodyBytes + rng.pick([1, 1000, 2_000_000])),
        }),
    ],
  ]);
}

/** A valid body for `model` (a character body is valid on `default` too). */
const textBase = (rng: Rng, model: string) => () =>
  (model === "default" && rng.chance(0.7) ? defaultRequest() : characterRequest()) as { [key: string]: Json };
const speechBase = () =>
  ({ text: "Hello there.", voice: "Witch", speed: 1.25, format: "wav" }) as { [key: string]: Json };

export interface HttpMessage {
  method: string;
  target: string;
  headers: [string, string][];
  body?: Buffer;
  chunked?: boolean;
  version?: string;
}

/** Serializes a request; header text is written as latin1 so any byte can be placed. */
export function serialize(rng: Rng, m: HttpMessage): Buffer {
  const headers = [...m.headers];
  const body = m.body ?? Buffer.alloc(0);
  if (m.chunked) headers.push(["Transfer-Encoding", "chunked"]);
  else if (m.body) headers.push(["Content-Length", String(body.length)]);
  const head = `${m.method} ${m.target} ${m.version ?? "HTTP/1.1"}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), m.chunked ? chunk(rng, body) : body]);
}

export function chunk(rng: Rng, body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const size = Math.min(body.length - at, 1 + rng.int(rng.chance(0.5) ? 16 : 65_536));
    parts.push(Buffer.from(`${size.toString(16)}\r\n`), body.subarray(at, at + size), Buffer.from("\r\n"));
    at += size;
  }
  return Buffer.concat([...parts, Buffer.from("0\r\n\r\n")]);
}

/** Content-Encoding: sometimes honest, sometimes a lie about the bytes. */
export function encodeBody(rng: Rng, body: Buffer): { body: Buffer; encoding: string } {
  return rng.pick([
    () => ({ body: gzipSync(body), encoding: "gzip" }),
    () => ({ body: deflateSync(body), encoding: "deflate" }),
    () => ({ body, encoding: rng.pick(["gzip", "deflate", "br"]) }),
    () => ({ body, encoding: rng.pick(["identity", "x-custom", "gzip, deflate", ""]) }),
  ])();
}

// ---- Well-formed HTTP/1.1 requests against the real routes: the app itself must answer each. ----

const METHODS = [
  "GET",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
  "HEAD",
  "PROPFIND",
  "PURGE",
  "TRACE",
  "SEARCH",
  "REPORT",
] as const;

const ODD_SEGMENTS = [
  "%ZZ",
  "%",
  "%E0%A4%A",
  "%C0%AF",
  "%ED%A0%80",
  "%FF",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e",
  "..",
  ".",
  "%00",
  "default%20",
  "%64efault",
  "%57itch",
  "witch",
  "DEFAULT",
  "Witch2",
  "a;b",
  "a,b",
  "~",
  "*",
  "$",
  "'",
  "(x)",
  "a%2Fb",
  "%25",
  "%u0041",
] as const;

/** encodeURIComponent throws on a lone surrogate; such a string goes as its CESU-8 escape instead. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

function segment(rng: Rng): string {
  return rng.weighted<string>([
    [4, () => encodeSegment(oddString(rng).slice(0, 300))],
    [4, () => rng.pick(ODD_SEGMENTS)],
    [1, () => "a".repeat(rng.pick([65, 300, 5000]))],
    [
      1,
      () =>
        Array.from({ length: 36 }, (_, i) => ([8, 13, 18, 23].includes(i) ? "-" : rng.int(16).toString(16))).join(""),
    ],
  ]);
}

function withSuffix(rng: Rng, path: string): string {
  return rng.weighted<string>([
    [20, () => path],
    [2, () => `${path}/`],
    [1, () => path.toUpperCase()],
    [
      2,
      () =>
        `${path}?${rng.pick(["a=1&a=2", "__proto__[x]=1", "a[b][c][d]=1", "%ZZ", `x=${"y".repeat(3000)}`, "=&&=", "messages=1"])}`,
    ],
  ]);
}

const MISC_PATHS = [
  "/healthz",
  "/readyz",
  "/api/voices",
  "/",
  "/api",
  "/api/text",
  "/api/text/",
  "/api/v2/status",
  "/api/v2/status/",
  "*",
  "/../../etc/passwd",
  "/api/../api/text/default",
  "//api//text//default",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/api/text/default/extra",
  "http://127.0.0.1/api/text/default",
  "/api/tts/../text/default",
  `/${"a/".repeat(3000)}`,
  "/api/audio",
  "/api/audio/full/x",
] as const;

function path(rng: Rng, route: string, ctx: FuzzContext): string {
  switch (route) {
    case "text":
      return withSuffix(rng, `/api/text/${rng.chance(0.6) ? rng.pick(MODEL_IDS) : segment(rng)}`);
    case "speech":
      return withSuffix(rng, rng.pick(["/api/audio/full", "/api/tts", "/api/audio/%66ull", "/API/TTS"]));
    case "status": {
      const id = rng.weighted<string>([
        [4, () => rng.pick(ctx.statusIds)],
        [5, () => segment(rng)],
        [1, () => ""],
      ]);
      return withSuffix(rng, `${rng.pick(["/api/v2/status/", "/api/status/"])}${id}`);
    }
    default:
      return rng.pick(MISC_PATHS);
  }
}

function authorization(rng: Rng, keys: FuzzKeys): string | null {
  const random = () => Array.from({ length: 43 }, () => String.fromCharCode(48 + rng.int(75))).join("");
  return rng.weighted<string | null>([
    [70, () => `Bearer ${keys.good}`],
    [
      4,
      () =>
        rng.pick([
          `bearer ${keys.good}`,
          `BEARER   ${keys.good}   `,
          `Bearer\t${keys.good}`,
          `Bearer ${keys.good} extra`,
          `Token ${keys.good}`,
        ]),
    ],
    [5, () => null],
    [
      4,
      () =>
        rng.pick([
          "Bearer",
          "Bearer ",
          "Basic dXNlcjpwYXNz",
          "Bearer ck_",
          `Bearer ck_${"A".repeat(5000)}`,
          `Bearer ${keys.good.slice(0, -1)}`,
          "Digest x",
          "ck_x",
        ]),
    ],
    [4, () => `Bearer ck_${random()}`],
    [4, () => `Bearer ${keys.revoked}`],
    [5, () => `Bearer ${keys.textDefaultOnly}`],
    [4, () => `Bearer ${keys.ttsOnly}`],
  ]);
}

const CONTENT_TYPES = [
  "application/json; charset=utf-8",
  'application/json;charset="UTF-8"',
  "APPLICATION/JSON",
  "application/json ; foo=bar",
  "application/json; charset=utf-16le",
  "application/json; charset=latin1",
  "application/json; charset=utf-7",
  "application/json; charset=",
  "application/json; charset",
  "application/vnd.api+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "*/*",
  "application/*",
  "json",
  "application/json, text/plain",
  "application/json; charset=utf-8; charset=koi8-r",
  ";;;",
  "text/json",
] as const;

function appCase(rng: Rng, ctx: FuzzContext): FuzzCase {
  const route = rng.weighted<string>([
    [35, () => "text"],
    [15, () => "speech"],
    [15, () => "status"],
    [20, () => "random"],
    [15, () => "misc"],
  ]);
  const usual =
    route === "text" || route === "speech"
      ? "POST"
      : route === "status"
        ? rng.pick(["GET", "GET", "DELETE", "HEAD"])
        : "GET";
  const method = rng.chance(route === "random" ? 1 : 0.15) ? rng.pick(METHODS) : usual;
  const target = path(rng, route === "random" ? rng.pick(["text", "speech", "status", "misc"]) : route, ctx);
  const model = /^\/api\/text\/(\w+)/.exec(target)?.[1] ?? "default";
  const withBody = method === "POST" ? rng.chance(0.95) : rng.chance(0.15);
  const base = route === "speech" || (route === "random" && rng.chance(0.3)) ? speechBase : textBase(rng, model);
  const headers: [string, string][] = [["Host", ctx.host]];
  const auth = authorization(rng, ctx.keys);
  if (auth !== null) headers.push(["Authorization", auth]);
  let body: Buffer | undefined;
  if (withBody) {
    body = Buffer.from(jsonBody(rng, base), "utf8");
    if (rng.chance(0.9)) headers.push(["Content-Type", rng.chance(0.6) ? "application/json" : rng.pick(CONTENT_TYPES)]);
    if (rng.chance(0.05)) {
      const encoded = encodeBody(rng, body);
      body = encoded.body;
      headers.push(["Content-Encoding", encoded.encoding]);
    }
  }
  if (rng.chance(0.05))
    headers.push(["X-Request-Id", rng.pick(["abc-123", "x".repeat(65), "../../x", "a b", "", "%00"])]);
  if (rng.chance(0.05))
    headers.push([
      "X-Forwarded-For",
      rng.pick([
        "1.2.3.4",
        "::1",
        "2001:db8::1",
        "fe80::1%eth0",
        "::ffff:1.2.3.4",
        "garbage",
        "1.2.3.4, 5.6.7.8",
        "",
        "[::1]:80",
        "unknown",
        "999.1.1.1",
      ]),
    ]);
  if (rng.chance(0.03)) headers.push(["Expect", "100-continue"]);
  if (rng.chance(0.03)) headers.push(["Accept", rng.pick(["text/html", "application/xml", "*/*;q=0", "garbage"])]);
  headers.push(["Connection", "close"]);
  return {
    kind: `app:${route}`,
    method,
    bytes: serialize(rng, { method, target, headers, body, chunked: !!body && rng.chance(0.1) }),
    protocolGarbage: false,
    halfClose: false,
  };
}

// ---- Protocol-level requests: malformed framing, headers, methods, versions and plain garbage. ----

function raw(
  kind: string,
  method: string,
  bytes: Buffer | string,
  protocolGarbage = true,
  halfClose = false,
): FuzzCase {
  return {
    kind: `raw:${kind}`,
    method,
    bytes: typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes,
    protocolGarbage,
    halfClose,
  };
}

function rawCase(rng: Rng, ctx: FuzzContext): FuzzCase {
  const valid = JSON.stringify(defaultRequest());
  const head = (lines: string[], method = "POST", target = "/api/text/default") =>
    `${method} ${target} HTTP/1.1\r\nHost: ${ctx.host}\r\nAuthorization: Bearer ${ctx.keys.good}\r\nConnection: close\r\n${lines.map((l) => `${l}\r\n`).join("")}\r\n`;
  const json = "Content-Type: application/json";
  return rng.weighted<FuzzCase>([
    [
      3,
      () =>
        raw(
          "bad-header-value",
          "POST",
          head([
            json,
            `Content-Length: ${valid.length}`,
            `${rng.pick(["X-Custom", "Authorization", "Content-Type"])}: a${rng.pick(["\x00", "\x01", "\x7f", "\x1b[31m", "\rb", "\xff\xe9"])}b`,
          ]) + valid,
        ),
    ],
    [
      3,
      () =>
        raw(
          "bad-header-line",
          "POST",
          head([
            json,
            `Content-Length: ${valid.length}`,
            rng.pick([
              "NoColonHere",
              "Content-Type : application/json",
              "X(Y): z",
              " folded: continuation",
              "X-A: 1\n X-B: 2",
              "\x00: x",
              ": empty-name",
            ]),
          ]) + valid,
        ),
    ],
    [
      1,
      () =>
        raw(
          "lf-only",
          "GET",
          `GET /api/v2/status/x HTTP/1.1\nHost: ${ctx.host}\nAuthorization: Bearer ${ctx.keys.good}\nConnection: close\n\n`,
        ),
    ],
    [
      2,
      () =>
        raw(
          "content-length-larger",
          "POST",
          head([json, `Content-Length: ${valid.length + 1 + rng.int(5000)}`]) + valid,
          true,
          true,
        ),
    ],
    [2, () => raw("content-length-smaller", "POST", head([json, `Content-Length: ${rng.int(valid.length)}`]) + valid)],
    [
      3,
      () =>
        raw(
          "content-length-invalid",
          "POST",
          head([
            json,
            rng.pick([
              "Content-Length: abc",
              "Content-Length: -1",
              "Content-Length: 1e3",
              "Content-Length:  10",
              "Content-Length: 0x10",
              "Content-Length: 99999999999999999999",
              `Content-Length: ${valid.length}\r\nContent-Length: 3`,
              `Content-Length: ${valid.length}\r\nTransfer-Encoding: chunked`,
            ]),
          ]) + valid,
          true,
          true,
        ),
    ],
    [
      3,
      () =>
        raw(
          "chunked-invalid",
          "POST",
          head([
            json,
            `Transfer-Encoding: ${rng.pick(["chunked", "chunked", "chunked, gzip", "gzip", "xchunked", " chunked"])}`,
          ]) +
            rng.pick([
              "zz\r\nabc\r\n0\r\n\r\n",
              "5\r\nabc",
              "3;a=\x01\r\nabc\r\n0\r\n\r\n",
              "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
              "2\r\nabcdef\r\n0\r\n\r\n",
              `${valid.length.toString(16)}\r\n${valid}\r\n`,
              "3\r\nabc0\r\n\r\n",
            ]),
          true,
          true,
        ),
    ],
    [
      2,
      () =>
        raw(
          "truncated-body",
          "POST",
          head([json, `Content-Length: ${valid.length}`]) + valid.slice(0, rng.int(valid.length)),
          true,
          true,
        ),
    ],
    [
      2,
      () =>
        raw(
          "long",
          "GET",
          rng.pick([
            () => head([], "GET", `/api/v2/status/${"a".repeat(rng.pick([20_000, 100_000]))}`),
            () => head([`X-Long: ${"v".repeat(20_000)}`], "GET", "/api/v2/status/x"),
            () =>
              head(
                Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`),
                "GET",
                "/api/v2/status/x",
              ),
          ])(),
        ),
    ],
    [
      3,
      () => {
        const m = rng.pick(["FOO", "get", "G-T", "POST\x00", "\xc4\x9e", "A".repeat(100), "QUERY", "CONNECT"]);
        return raw("method", m, head([], m, m === "CONNECT" ? "127.0.0.1:80" : "/api/v2/status/x"));
      },
    ],
    [
      2,
      () =>
        raw(
          "version",
          "GET",
          head([], "GET", "/api/v2/status/x").replace(
            "HTTP/1.1",
            rng.pick(["HTTP/2.0", "HTTP/9.9", "HTTP/1.1x", "HTTP/1", "http/1.1", "HTTP/1.10", ""]),
          ),
          true,
          true,
        ),
    ],
    [
      1,
      () =>
        raw("http1.0", "GET", `GET /api/v2/status/x HTTP/1.0\r\nAuthorization: Bearer ${ctx.keys.good}\r\n\r\n`, false),
    ],
    [
      3,
      () =>
        raw(
          "bytes",
          "?",
          rng.pick([
            () => Buffer.from(Array.from({ length: 1 + rng.int(2000) }, () => rng.int(256))),
            () => Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
            () => Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
            () => Buffer.from("\r\n\r\n"),
            () => Buffer.alloc(0),
          ])(),
          true,
          true,
        ),
    ],
    [
      4,
      () => {
        const bad = Buffer.from(
          rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xfe, 0xff], [0x80]]),
        );
        const [before, after] = [
          Buffer.from('{"messages":[{"role":"You","content":"a'),
          Buffer.from('b","index":0}]}'),
        ];
        const body = rng.chance(0.2) ? Buffer.from(valid, "utf16le") : Buffer.concat([before, bad, after]);
        const type = rng.pick([
          "application/json",
          "application/json; charset=utf-8",
          "application/json; charset=utf-16le",
          "application/json; charset=utf-16",
        ]);
        return raw(
          "non-utf8-body",
          "POST",
          Buffer.concat([Buffer.from(head([`Content-Type: ${type}`, `Content-Length: ${body.length}`])), body]),
          false,
        );
      },
    ],
    [
      1,
      () =>
        raw(
          "path-bytes",
          "GET",
          head([], "GET", `/api/text/${rng.pick(["\xff\xfe", "a b", "a\x01b", "\x7f", "caf\xe9"])}`),
        ),
    ],
    [
      2,
      () =>
        raw(
          "big-chunked",
          "POST",
          Buffer.concat([
            Buffer.from(head([json, "Transfer-Encoding: chunked"])),
            chunk(
              rng,
              Buffer.from(
                JSON.stringify({
                  messages: [{ role: "You", content: "x".repeat(REQUEST_LIMITS.maxBodyBytes), index: 0 }],
                }),
              ),
            ),
          ]),
          false,
        ),
    ],
    [
      2,
      () =>
        raw(
          "pipelined",
          "POST",
          head([json, `Content-Length: ${valid.length}`]).replace("Connection: close\r\n", "") +
            valid +
            head([], "GET", "/healthz"),
          false,
        ),
    ],
  ]);
}

/**
 * `count` requests from `seed`: about one in six protocol-level, the rest well-formed. Lazy, so huge bodies do not pile
 * up.
 */
export function* fuzzCases(seed: number, count: number, ctx: FuzzContext): Generator<FuzzCase> {
  const rng = new Rng(seed);
  for (let i = 0; i < count; i++) yield rng.chance(0.16) ? rawCase(rng, ctx) : appCase(rng, ctx);
}
