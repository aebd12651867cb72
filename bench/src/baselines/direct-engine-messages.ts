import type { SpeechRequest } from "@chorus/contracts";

/**
 * What the bench and its direct-engine baseline processes (speech, generation) say over IPC: the
 * bench sends one call at a time; the process answers it, timed on its own clock (see nowMs).
 */
export interface EngineCall<Q> {
  id: number;
  request: Q;
}

export type EngineReply<R> =
  { kind: "ready" } | { kind: "result"; id: number; result: R } | { kind: "error"; id: number; message: string };

export function isEngineReply(value: unknown): value is EngineReply<unknown> {
  return typeof value === "object" && value !== null && "kind" in value;
}

/** Speech: the validated request, as the worker's processor hands it to the engine. */
export type SpeechCall = SpeechRequest;

export interface SpeechTiming {
  /** From calling synthesize to its result (synthesis, joining and encoding in the engine's thread). */
  ms: number;
  bytes: number;
  durationSeconds: number | null;
}

/** Generation: the JSON body a client would POST to /api/text/default. */
export interface GenerationCall {
  body: unknown;
}

export interface GenerationTiming {
  /** From calling generate to its result. */
  ms: number;
  tokens: number;
  promptTokens: number;
  cachedTokens: number;
}
