import { nowMs } from "../metrics/clock.js";
import { EspeakSpeechEngine } from "@chorus/worker/speech";
import type { SpeechCall, SpeechTiming } from "./direct-engine-messages.js";
import { serveEngineCalls } from "./engine-call-server.js";

/**
 * Baseline of the speech rows: the worker's own EspeakSpeechEngine, alone in a process, with the
 * worker's thread count (TTS_CONCURRENCY, 1 by default). Each call is one synthesize() of the
 * request the worker's processor would get, timed from the call to the encoded bytes. No queue,
 * no Redis, no gateway, no HTTP.
 */
const engine = new EspeakSpeechEngine({ concurrency: Number(process.env.TTS_CONCURRENCY ?? 1) });

async function synthesize(request: SpeechCall): Promise<SpeechTiming> {
  const started = nowMs();
  const audio = await engine.synthesize(request, new AbortController().signal);
  return { ms: nowMs() - started, bytes: audio.bytes.length, durationSeconds: audio.durationSeconds };
}

serveEngineCalls(synthesize, () => engine.close());
