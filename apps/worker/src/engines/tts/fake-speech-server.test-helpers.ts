import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { AUDIO_FORMAT_INFO, isAudioFormat } from "@chorus/contracts";
import { encodeAudio } from "@chorus/audio";
import { voicedSignal } from "../../../../../test-support/audio/test-signals.js";
import { startScriptedServer, type ScriptedServer } from "../scripted-server.test-helpers.js";

/**
 * A test double of an OpenAI-compatible speech server on 127.0.0.1 and an ephemeral port. By
 * default it "speaks" like OpenAI: a voiced tone lasting as long as a 175 wpm × speed speaker
 * would take over `input`, at 24 kHz, encoded in `response_format`. Tests queue scripted answers.
 */

export interface SpeechRequestBody {
  model?: unknown;
  input?: unknown;
  voice?: unknown;
  speed?: unknown;
  response_format?: unknown;
}

export interface RecordedSpeechRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: SpeechRequestBody;
}

export type ScriptedSpeechResponse =
  | { kind: "status"; status: number; body: string }
  /** These exact bytes, as a 200. */
  | { kind: "bytes"; body: Uint8Array; contentType: string }
  /** Accepts the request and never answers. */
  | { kind: "hang" };

export type FakeSpeechServer = ScriptedServer<RecordedSpeechRequest, ScriptedSpeechResponse>;

export const FAKE_SAMPLE_RATE = 24000;

async function readBody(req: IncomingMessage): Promise<SpeechRequestBody> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as SpeechRequestBody;
}

async function speak(res: ServerResponse, body: SpeechRequestBody): Promise<void> {
  const format = body.response_format ?? "mp3";
  if (typeof format !== "string" || !isAudioFormat(format) || typeof body.input !== "string") {
    res
      .writeHead(400, { "content-type": "application/json" })
      .end(JSON.stringify({ error: { message: `bad request: ${JSON.stringify(format)}` } }));
    return;
  }
  const speed = typeof body.speed === "number" ? body.speed : 1;
  const seconds = (body.input.split(/\s+/).length / (175 * speed)) * 60;
  const bytes = await encodeAudio(
    { samples: voicedSignal(seconds, FAKE_SAMPLE_RATE), sampleRate: FAKE_SAMPLE_RATE },
    format,
  );
  res.writeHead(200, { "content-type": AUDIO_FORMAT_INFO[format].contentType }).end(bytes);
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: { requests: RecordedSpeechRequest[]; queue: ScriptedSpeechResponse[] },
): Promise<void> {
  const request: RecordedSpeechRequest = {
    method: req.method ?? "",
    path: req.url ?? "",
    headers: req.headers,
    body: await readBody(req),
  };
  state.requests.push(request);
  if (request.method !== "POST" || request.path !== "/v1/audio/speech") {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
    return;
  }
  const script = state.queue.shift();
  if (script?.kind === "hang") return;
  if (script?.kind === "status") res.writeHead(script.status, { "content-type": "application/json" }).end(script.body);
  else if (script?.kind === "bytes") res.writeHead(200, { "content-type": script.contentType }).end(script.body);
  else await speak(res, request.body);
}

export async function startFakeSpeechServer(): Promise<FakeSpeechServer> {
  const state = { requests: [] as RecordedSpeechRequest[], queue: [] as ScriptedSpeechResponse[] };
  return startScriptedServer(state, handle);
}
