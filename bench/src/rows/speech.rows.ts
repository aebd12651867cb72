import type { AudioFormat, SpeechRequest, VoiceId } from "@chorus/contracts";
import type { SpeechCall, SpeechTiming } from "../baselines/direct-engine-messages.js";
import { round } from "../metrics/stats.js";
import { makeRow, medianFigure, type BenchRow, type Figure } from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";
import { EngineProcess } from "../stack/engine-process.js";
import { timedPost } from "../stack/net.js";
import { startRealWorker } from "../stack/workers.js";
import type { RowGroup } from "./row-group.js";
import { SPEECH_TEXT, SPEECH_TEXT_WORDS } from "./speech-text.js";

/**
 * Time from request to last byte of a 200-word text in each format, whole (`Prefer: stream=false`), next to
 * the engine's own synthesis time measured in the same run. Subject: POST /api/audio/full through the real gateway,
 * BullMQ and the real worker (eSpeak in its thread, audio parked in Redis, GETDEL, the response streamed), timed by the
 * bench from sending the request to the body's last byte. Baseline: the worker's EspeakSpeechEngine alone in a process,
 * synthesize() of the same request. Both run one synthesis at a time (the worker's TTS_CONCURRENCY default, 1, set
 * explicitly on both sides).
 */
const VOICE: VoiceId = "en-us-female";
const TTS_CONCURRENCY = 1;

type Sample = { ms: number; bytes: number; durationSeconds: number | null };
type Side = (request: SpeechRequest) => Promise<Sample>;

function throughGateway(stack: BenchStack): Side {
  // Whole, as this row has always measured it (the engine's whole-file path); streamed: speech-first-byte.rows.ts.
  const auth = { authorization: `Bearer ${stack.apiKey}`, prefer: "stream=false" };
  return async (request) => {
    const res = await timedPost(`${stack.gateway.url}/api/audio/full`, auth, request);
    if (res.status !== 200)
      throw new Error(
        `POST /api/audio/full (${request.format}) answered ${res.status}: ${res.errorText.slice(0, 300)}`,
      );
    const duration = Number(res.headers["x-audio-duration"]);
    return {
      ms: res.lastByteAt - res.sentAt,
      bytes: res.bytes,
      durationSeconds: Number.isFinite(duration) ? duration : null,
    };
  };
}

function direct(engine: EngineProcess<SpeechCall, SpeechTiming>): Side {
  return (request) => engine.call(request);
}

function msFigure(label: string, samples: Sample[]): Figure {
  return medianFigure(
    label,
    samples.map((s) => s.ms),
    "ms",
  );
}

/** One unrecorded request per side (threads, WASM and encoder start-up), then `runs` each, alternating. */
async function measureFormat(format: AudioFormat, runs: number, subject: Side, baseline: Side) {
  const request: SpeechRequest = { text: SPEECH_TEXT, voice: VOICE, speed: 1, format };
  await subject(request);
  await baseline(request);
  const result = { subject: [] as Sample[], baseline: [] as Sample[] };
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? (["subject", "baseline"] as const) : (["baseline", "subject"] as const);
    for (const which of order) result[which].push(await (which === "subject" ? subject : baseline)(request));
  }
  return result;
}

function speechRow(format: AudioFormat, runs: number, measured: { subject: Sample[]; baseline: Sample[] }): BenchRow {
  const subject = msFigure(
    "POST /api/audio/full through gateway, queue, worker and Redis, to the last byte",
    measured.subject,
  );
  const baseline = msFigure(
    "the worker's EspeakSpeechEngine.synthesize alone in a process (same request)",
    measured.baseline,
  );
  const audio = measured.baseline[0];
  const seconds = audio?.durationSeconds;
  return makeRow({
    group: "speech",
    name: `speech ${format}, ${SPEECH_TEXT_WORDS} words, request → last byte`,
    subject,
    baseline,
    target: null,
    notes: [
      `${runs} request(s) per side one at a time after one warm-up each, order alternating; medians; concurrency ${TTS_CONCURRENCY} on both sides (TTS_CONCURRENCY, the worker's default); voice ${VOICE}, speed 1; the bench's key has raised limits`,
      `${seconds === null || seconds === undefined ? "?" : round(seconds, 1)} s of audio, ${audio?.bytes ?? "?"} bytes direct / ${measured.subject[0]?.bytes ?? "?"} bytes through the gateway; medians differ by ${round(subject.value - baseline.value, 1)} ms (service − direct: queue, Redis, gateway, HTTP)`,
    ],
  });
}

export const speechRows: RowGroup = {
  name: "speech",
  run: async ({ stack, options, log }) => {
    const settings = { TTS_ENGINE: "espeak", TTS_CONCURRENCY: String(TTS_CONCURRENCY) };
    const worker = await startRealWorker(stack, options.model, settings);
    let engine: EngineProcess<SpeechCall, SpeechTiming> | undefined;
    try {
      engine = await EngineProcess.start<SpeechCall, SpeechTiming>(
        "espeak-direct",
        "baselines/espeak-direct.process.js",
        { ...stack.baseEnv, ...settings },
      );
      const rows: BenchRow[] = [];
      for (const format of options.formats) {
        const measured = await measureFormat(format, options.speechRuns, throughGateway(stack), direct(engine));
        const row = speechRow(format, options.speechRuns, measured);
        log(`  ${format}: ${row.subject.value} ms through the service, ${row.baseline.value} ms direct`);
        rows.push(row);
      }
      return rows;
    } finally {
      await Promise.all([worker.stop(), engine?.stop()]);
      await stack.resetQueues();
    }
  },
};
