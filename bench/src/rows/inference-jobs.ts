import { validateGenerationRequest, type StatusRecord, type SubmitResponse } from "@chorus/contracts";
import { buildChatTurns, loadCharacterCatalog } from "@chorus/worker/llm";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { nowMs, sleep } from "../metrics/clock.js";
import type { BenchStack } from "../stack/bench-stack.js";
import type { EngineProcess } from "../stack/engine-process.js";
import { httpJson } from "../stack/net.js";

/**
 * The requests of the inference rows, sent alike to the service, to the worker's engine alone and
 * to llama-server: a conversation (`messages` as the public API takes them) and its sampling.
 */
export interface Message {
  role: "You" | "Bot";
  content: string;
  index: number;
}

export interface InferenceRequest {
  messages: Message[];
  maxTokens: number;
}

/** What one request came back with. */
export interface Completion {
  tokens: number;
  promptTokens: number;
  cachedTokens: number;
  /** From sending the request to seeing its result, ms. */
  ms: number;
  /** The reply's text, where the side tells it (what a chat client sends back in its next turn). */
  reply?: string;
}

export const SAMPLING = { temperature: 0.7, top_p: 0.9 };

export function apiBody(request: InferenceRequest) {
  return { messages: request.messages, samplingParams: { max_tokens: request.maxTokens, ...SAMPLING } };
}

/** The chat turns the worker builds from a request (default character), for llama-server. */
export async function chatTurnsOf(): Promise<(request: InferenceRequest) => { role: string; content: string }[]> {
  const character = (await loadCharacterCatalog()).default;
  return (request) => buildChatTurns(validateGenerationRequest("default", apiBody(request)), character);
}

/** Longest wait a client asks for with `Prefer: wait` (the gateway's maximum). */
const WAIT_SECONDS = 60;

/**
 * How a client learns the outcome: polling the status every `pollEveryMs`, or waiting
 * (`Prefer: wait=60` on submit, which answers with the finished record when it finishes within the
 * wait, and on each status GET: one request per minute at most).
 */
export type ServiceClient = { pollEveryMs: number } | { waits: true };

/** Through the whole service: submit, then status GETs as `client` makes them until the record is final. */
export async function viaService(
  stack: BenchStack,
  request: InferenceRequest,
  client: ServiceClient,
): Promise<Completion> {
  const headers = {
    authorization: `Bearer ${stack.apiKey}`,
    ...("waits" in client ? { prefer: `wait=${WAIT_SECONDS}` } : {}),
  };
  const sentAt = nowMs();
  const submitted = await httpJson("POST", `${stack.gateway.url}/api/text/default`, headers, apiBody(request));
  const id = (submitted.body as Partial<SubmitResponse>).id;
  if (submitted.status !== 200 || typeof id !== "string")
    throw new Error(`submit failed: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const deadline = Date.now() + 300_000;
  let record = submitted.body as Partial<StatusRecord>;
  for (let polls = 0; record.status !== "completed"; polls++) {
    if (record.status === "error" || Date.now() > deadline)
      throw new Error(`job ${id} did not complete: ${JSON.stringify(record)}`);
    if (polls > 0 && "pollEveryMs" in client) await sleep(client.pollEveryMs);
    record = (await httpJson("GET", `${stack.gateway.url}/api/v2/status/${id}`, headers)).body as Partial<StatusRecord>;
  }
  return {
    tokens: record.tokens ?? Number.NaN,
    promptTokens: record.promptTokens ?? Number.NaN,
    cachedTokens: record.cachedTokens ?? Number.NaN,
    ms: nowMs() - sentAt,
    reply: record.reply ?? "",
  };
}

/** The worker's engine alone in its own process (baselines/llama-direct.process). */
export async function viaEngine(
  engine: EngineProcess<GenerationCall, GenerationTiming>,
  request: InferenceRequest,
): Promise<Completion> {
  const sentAt = nowMs();
  const timing = await engine.call({ body: apiBody(request) });
  return {
    tokens: timing.tokens,
    promptTokens: timing.promptTokens,
    cachedTokens: timing.cachedTokens,
    ms: nowMs() - sentAt,
  };
}

/** llama-server's OpenAI-compatible endpoint, given the same chat turns the worker builds. */
export async function viaLlamaServer(
  url: string,
  turns: { role: string; content: string }[],
  request: InferenceRequest,
): Promise<Completion> {
  const sentAt = nowMs();
  const body = { messages: turns, max_tokens: request.maxTokens, ...SAMPLING, cache_prompt: true };
  const answer = await httpJson("POST", `${url}/v1/chat/completions`, {}, body);
  const reply = answer.body as {
    usage?: { completion_tokens?: number; prompt_tokens?: number };
    timings?: { cache_n?: number };
    choices?: Array<{ message?: { content?: string } }>;
  };
  if (answer.status !== 200)
    throw new Error(`llama-server answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
  return {
    tokens: reply.usage?.completion_tokens ?? Number.NaN,
    promptTokens: reply.usage?.prompt_tokens ?? Number.NaN,
    cachedTokens: reply.timings?.cache_n ?? Number.NaN,
    ms: nowMs() - sentAt,
    reply: reply.choices?.[0]?.message?.content ?? "",
  };
}

/** Requests sent at once: what came back, and the seconds until the last one ended. */
async function sendAll(requests: InferenceRequest[], send: (request: InferenceRequest) => Promise<Completion>) {
  const started = nowMs();
  const done = await Promise.all(requests.map(send));
  return { done, seconds: (nowMs() - started) / 1000 };
}

/** Tokens per second of requests sent at once: all their tokens over the time until the last one ended. */
export async function aggregateRate(
  requests: InferenceRequest[],
  send: (request: InferenceRequest) => Promise<Completion>,
): Promise<number> {
  const { done, seconds } = await sendAll(requests, send);
  return done.reduce((sum, c) => sum + c.tokens, 0) / seconds;
}

/** Requests sent at once, completed per minute. */
export async function jobsPerMinute(
  requests: InferenceRequest[],
  send: (request: InferenceRequest) => Promise<Completion>,
): Promise<number> {
  const { done, seconds } = await sendAll(requests, send);
  return (done.length / seconds) * 60;
}

/** `count` rounds of every side, the order rotating each round so no side always goes first. */
export async function rotate<K extends string, T>(
  count: number,
  sides: Record<K, (round: number) => Promise<T>>,
): Promise<Record<K, T[]>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as T[]])) as Record<K, T[]>;
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as K;
      results[name].push(await sides[name](round));
    }
  }
  return results;
}

/**
 * A conversation of `turns` alternating messages, different for every `id` from the first word on
 * (so no slot holds it beforehand) and about `charsPerMessage` long per message.
 */
export function conversation(id: string, turns: number, charsPerMessage = 80): Message[] {
  const words = "the cat sat by the warm fire and told a long story about the sea the stars and a small boat".split(
    " ",
  );
  return Array.from({ length: turns }, (_, index) => {
    let content = `${id} ${index}:`;
    for (let w = index; content.length < charsPerMessage; w++) content += ` ${words[w % words.length] ?? ""}`;
    return { role: index % 2 === 0 ? "You" : "Bot", content, index };
  });
}

/** The conversation's next turn: a reply by the bot, then the user's next message. */
export function nextTurn(messages: Message[]): Message[] {
  const at = messages.length;
  return [
    ...messages,
    { role: "Bot", content: "That is a fine story.", index: at },
    { role: "You", content: "What happened next?", index: at + 1 },
  ];
}
