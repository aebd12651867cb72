import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { startScriptedServer, type ScriptedServer } from "../scripted-server.test-helpers.js";

/**
 * A test double of an OpenAI-compatible chat completions server, on 127.0.0.1 and an ephemeral
 * port. Its reply is derived from the request (the last user turn's words, reversed and cycled up
 * to max_tokens, one word per token, cut before a `stop` sequence), and it streams SSE in small
 * byte pieces, so events and UTF-8 characters arrive split. Tests queue scripted behaviours; with
 * none queued it streams normally.
 */

export interface FakeChatRequestBody {
  model?: string;
  messages?: { role: string; content: string }[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  stop?: string[];
  tools?: { type: string; function: { name: string; parameters?: object } }[];
  tool_choice?: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: FakeChatRequestBody;
}

export type ScriptedResponse =
  | {
      kind: "status";
      status: number;
      body: string | ((request: RecordedRequest) => string);
      headers?: Record<string, string>;
    }
  /** Accepts the request and never answers. */
  | { kind: "hang" }
  /** Streams `tokens` deltas, then: a finish reason and the end (no [DONE]), just the end, a reset, or silence. */
  | { kind: "partial"; tokens: number; then: PartialEnding }
  /**
   * A normal stream, optionally with several words per delta (usage still counts words), its own pace, or SSE comments
   * every keepAliveMs while it waits.
   */
  | { kind: "stream"; wordsPerDelta?: number; tokenDelayMs?: number; keepAliveMs?: number }
  /** A tool call, streamed as OpenAI does: its id and name, then its arguments in two pieces; finish `tool_calls`. */
  | { kind: "toolCall"; name: string; arguments: string };

export type PartialEnding = "finish" | "end" | "destroy" | "hang";

export type FakeOpenAiServer = ScriptedServer<RecordedRequest, ScriptedResponse>;

const BYTES_PER_WRITE = 5;

/** The words of the reply the fake server streams for these messages. */
export function fakeReplyWords(body: FakeChatRequestBody): string[] {
  const lastUser = [...(body.messages ?? [])].reverse().find((message) => message.role === "user");
  const words = (lastUser?.content ?? "")
    .split(/\s+/)
    .filter((word) => word !== "")
    .reverse();
  const source = words.length > 0 ? words : ["silence"];
  return Array.from({ length: body.max_tokens ?? 16 }, (_, i) => source[i % source.length] as string);
}

/** The words streamed, cut before the first stop sequence (as a server cuts them), and whether one was met. */
function wordsUntilStop(body: FakeChatRequestBody): { words: string[]; stopped: boolean } {
  const words = fakeReplyWords(body);
  const text = words.join(" ");
  const cuts = (body.stop ?? []).map((stop) => text.indexOf(stop)).filter((at) => at >= 0);
  if (cuts.length === 0) return { words, stopped: false };
  return { words: text.slice(0, Math.min(...cuts)).split(" "), stopped: true };
}

function countWords(body: FakeChatRequestBody): number {
  return (body.messages ?? []).reduce((sum, m) => sum + m.content.split(/\s+/).filter(Boolean).length, 0);
}

/** The client went away (aborted, timed out): stop writing. */
function isGone(res: ServerResponse): boolean {
  return res.destroyed || res.socket === null || res.socket.destroyed;
}

async function writeSplit(res: ServerResponse, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  for (let offset = 0; offset < bytes.length && !isGone(res); offset += BYTES_PER_WRITE) {
    res.write(bytes.subarray(offset, offset + BYTES_PER_WRITE));
    await nextTurn();
  }
}

function event(payload: unknown, index: number): string {
  const eol = index % 2 === 0 ? "\n" : "\r\n";
  return `data: ${JSON.stringify(payload)}${eol}${eol}`;
}

function chunk(choices: unknown[], usage?: unknown): unknown {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices, usage };
}

/** Waits `delayMs` before the next token, sending an SSE comment every `keepAliveMs` (when set) meanwhile. */
async function pause(res: ServerResponse, delayMs: number, keepAliveMs: number | undefined): Promise<void> {
  if (!keepAliveMs) return void (await sleep(delayMs));
  for (let waited = 0; waited < delayMs && !isGone(res); waited += keepAliveMs) {
    await sleep(Math.min(keepAliveMs, delayMs - waited));
    res.write(": keep-alive\n\n");
  }
}

async function streamReply(
  res: ServerResponse,
  body: FakeChatRequestBody,
  tokenDelayMs: number,
  script?: ScriptedResponse,
): Promise<void> {
  const { words, stopped } = wordsUntilStop(body);
  const perDelta = (script?.kind === "stream" && script.wordsPerDelta) || 1;
  const delayMs = (script?.kind === "stream" && script.tokenDelayMs) || tokenDelayMs;
  const deltaLimit = script?.kind === "partial" ? script.tokens : Math.ceil(words.length / perDelta);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  await writeSplit(res, ": keep-alive\n\n");
  await writeSplit(
    res,
    event(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]), 0),
  );
  for (let i = 0; i < deltaLimit && !isGone(res); i += 1) {
    const piece = words.slice(i * perDelta, (i + 1) * perDelta).join(" ");
    const content = i === 0 ? piece : ` ${piece}`;
    if (delayMs > 0) await pause(res, delayMs, script?.kind === "stream" ? script.keepAliveMs : undefined);
    await writeSplit(res, event(chunk([{ index: 0, delta: { content }, finish_reason: null }]), i + 1));
  }
  if (script?.kind === "partial") return finishPartial(res, script.then);
  const finishReason = stopped ? "stop" : "length";
  await writeSplit(res, event(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]), 1));
  if (body.stream_options?.include_usage) {
    const usage = { prompt_tokens: countWords(body), completion_tokens: words.length, total_tokens: 0 };
    await writeSplit(res, event(chunk([], usage), 0));
  }
  await writeSplit(res, "data: [DONE]\n\n");
  res.end();
}

async function streamToolCall(res: ServerResponse, script: { name: string; arguments: string }): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const half = Math.floor(script.arguments.length / 2);
  const pieces = [
    { index: 0, id: "call_upstream1", type: "function", function: { name: script.name, arguments: "" } },
    { index: 0, function: { arguments: script.arguments.slice(0, half) } },
    { index: 0, function: { arguments: script.arguments.slice(half) } },
  ];
  const deltas = [{ role: "assistant", content: null }, ...pieces.map((call) => ({ tool_calls: [call] }))];
  for (const [i, delta] of deltas.entries())
    await writeSplit(res, event(chunk([{ index: 0, delta, finish_reason: null }]), i));
  await writeSplit(res, event(chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]), 0));
  await writeSplit(res, "data: [DONE]\n\n");
  res.end();
}

async function finishPartial(res: ServerResponse, then: PartialEnding): Promise<void> {
  if (then === "finish") await writeSplit(res, event(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]), 0));
  if (then === "finish" || then === "end") res.end();
  if (then === "destroy") res.socket?.destroy();
}

async function readBody(req: IncomingMessage): Promise<FakeChatRequestBody> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as FakeChatRequestBody;
}

interface ServerState {
  requests: RecordedRequest[];
  queue: ScriptedResponse[];
  tokenDelayMs: number;
}

async function handle(req: IncomingMessage, res: ServerResponse, state: ServerState): Promise<void> {
  const body = await readBody(req);
  const request: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
  state.requests.push(request);
  if (request.path !== "/v1/chat/completions") {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
    return;
  }
  if ((body.stop?.length ?? 0) > 4) {
    const error = { error: { message: "'stop' may hold at most 4 sequences", type: "invalid_request_error" } };
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(error));
    return;
  }
  const script = state.queue.shift();
  if (script?.kind === "hang") return;
  if (script?.kind === "status") {
    const text = typeof script.body === "function" ? script.body(request) : script.body;
    res.writeHead(script.status, { "content-type": "application/json", ...script.headers }).end(text);
    return;
  }
  if (script?.kind === "toolCall") return streamToolCall(res, script);
  await streamReply(res, request.body, state.tokenDelayMs, script);
}

export async function startFakeOpenAiServer(options: { tokenDelayMs?: number } = {}): Promise<FakeOpenAiServer> {
  const state: ServerState = { requests: [], queue: [], tokenDelayMs: options.tokenDelayMs ?? 0 };
  return startScriptedServer(state, handle);
}
