import type { AudioFormat, SpeechRequest, VoiceId } from "@chorus/contracts";
import { sleep } from "../metrics/clock.js";
import { round } from "../metrics/stats.js";
import { makeRow, medianFigure, ratioAtMost, type BenchRow } from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";
import { timedPost, type TimedDownload } from "../stack/net.js";
import { startRealWorker } from "../stack/workers.js";
import type { RowGroup } from "./row-group.js";
import { SPEECH_TEXT, SPEECH_TEXT_WORDS } from "./speech-text.js";

/**
 * Streamed speech. For the speech rows' 200-word text in each format, POST /api/audio/full
 * through the real gateway, BullMQ, the real worker and Redis, streamed (the default): the time from
 * sending the request to the body's first byte (subject) against the time to its last byte (baseline),
 * the same requests. Target: the first byte within 0.35× of the last. The notes add the whole file's
 * last byte (`Prefer: stream=false`, the same worker, alternating): what streaming costs in all.
 */
const VOICE: VoiceId = "en-us-female";
const TTS_CONCURRENCY = 1;

async function post(stack: BenchStack, request: SpeechRequest, whole: boolean): Promise<TimedDownload> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${stack.apiKey}`,
    ...(whole ? { prefer: "stream=false" } : {}),
  };
  const res = await timedPost(`${stack.gateway.url}/api/audio/full`, headers, request);
  if (res.status !== 200)
    throw new Error(`POST /api/audio/full (${request.format}) answered ${res.status}: ${res.errorText.slice(0, 300)}`);
  const streamed = res.headers["transfer-encoding"] === "chunked";
  if (streamed === whole)
    throw new Error(
      `POST /api/audio/full (${request.format}) was ${streamed ? "streamed" : "sent whole"}, not as asked`,
    );
  return res;
}

/**
 * Each timed request finds the worker idle, as a listener's requests do (one reply heard, then the
 * next asked for): the worker readies its next eSpeak instance in idle time. Back to back, the
 * first byte also pays that instance's start-up (~75 ms quiet): see docs/performance.md.
 */
const IDLE_BEFORE_REQUEST_MS = 500;

/** One unrecorded request each way, then `runs` of each, alternating which goes first. */
async function measureFormat(stack: BenchStack, format: AudioFormat, runs: number) {
  const request: SpeechRequest = { text: SPEECH_TEXT, voice: VOICE, speed: 1, format };
  await post(stack, request, false);
  await post(stack, request, true);
  const streamed: TimedDownload[] = [];
  const whole: TimedDownload[] = [];
  for (let i = 0; i < runs; i++) {
    for (const asWhole of i % 2 === 0 ? [false, true] : [true, false]) {
      await sleep(IDLE_BEFORE_REQUEST_MS);
      (asWhole ? whole : streamed).push(await post(stack, request, asWhole));
    }
  }
  return { streamed, whole };
}

function firstByteRow(
  format: AudioFormat,
  runs: number,
  { streamed, whole }: { streamed: TimedDownload[]; whole: TimedDownload[] },
): BenchRow {
  const subject = medianFigure(
    "streamed: request → first byte",
    streamed.map((r) => r.firstByteAt - r.sentAt),
    "ms",
  );
  const baseline = medianFigure(
    "streamed: request → last byte (the same requests)",
    streamed.map((r) => r.lastByteAt - r.sentAt),
    "ms",
  );
  const wholeLast = medianFigure(
    "whole",
    whole.map((r) => r.lastByteAt - r.sentAt),
    "ms",
  );
  return makeRow({
    group: "speech-first-byte",
    name: `speech first byte, ${format}, ${SPEECH_TEXT_WORDS} words, streamed`,
    subject,
    baseline,
    target: ratioAtMost(0.35),
    notes: [
      `${runs} streamed and ${runs} whole request(s) one at a time, each after ${IDLE_BEFORE_REQUEST_MS} ms idle, after one warm-up each, order alternating; medians; TTS_CONCURRENCY ${TTS_CONCURRENCY}; voice ${VOICE}, speed 1`,
      `whole (Prefer: stream=false), request → last byte: p50 ${wholeLast.p50Ms} / p99 ${wholeLast.p99Ms} ms; streamed last byte ${round(baseline.value / wholeLast.value, 2)}× of it; ${streamed[0]?.bytes ?? "?"} bytes streamed / ${whole[0]?.bytes ?? "?"} whole`,
    ],
  });
}

export const speechFirstByteRows: RowGroup = {
  name: "speech-first-byte",
  run: async ({ stack, options, log }) => {
    const worker = await startRealWorker(stack, options.model, {
      TTS_ENGINE: "espeak",
      TTS_CONCURRENCY: String(TTS_CONCURRENCY),
    });
    try {
      const rows: BenchRow[] = [];
      for (const format of options.formats) {
        const row = firstByteRow(format, options.speechRuns, await measureFormat(stack, format, options.speechRuns));
        log(
          `  ${format}: first byte ${row.subject.value} ms, last byte ${row.baseline.value} ms (${round(row.ratio, 2)}×)`,
        );
        rows.push(row);
      }
      return rows;
    } finally {
      await worker.stop();
      await stack.resetQueues();
    }
  },
};
