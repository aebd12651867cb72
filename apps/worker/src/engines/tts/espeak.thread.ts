import { encodeAudio, joinWithFades, timeStretch, type PcmAudio } from "@chorus/audio";
import { speakInPieces } from "./espeak.stream-speaker.js";
import { prepareSpareInstance, synthesizeWithEspeak } from "./espeak.synthesizer.js";
import type { EspeakJob, EspeakJobResult } from "./espeak.thread-protocol.js";
import { serveTasks, type TaskOutcome } from "./thread-pool.protocol.js";

// A speech thread: synthesis, joining and encoding all block, so all of it happens here, never on
// the worker's event loop.

/** eSpeak NG's output rate, used when there is nothing to speak. */
const ESPEAK_SAMPLE_RATE = 22050;

async function speak(job: EspeakJob): Promise<PcmAudio> {
  const pieces: Int16Array[] = [];
  let sampleRate = ESPEAK_SAMPLE_RATE;
  for (const chunk of job.chunks) {
    const pcm = await synthesizeWithEspeak(chunk, job.settings);
    pieces.push(pcm.samples);
    sampleRate = pcm.sampleRate;
  }
  const joined = joinWithFades(pieces, sampleRate);
  const { tempo } = job.settings;
  return { samples: tempo > 1 ? timeStretch(joined, sampleRate, tempo) : joined, sampleRate };
}

/**
 * The bytes in an ArrayBuffer of their own: a Buffer may be a view into Node's shared pool, which must not be
 * transferred.
 */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const whole =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  return whole ? bytes.buffer : new Uint8Array(bytes).buffer; // a copy (Buffer#slice would be a view)
}

async function run(job: EspeakJob): Promise<TaskOutcome<EspeakJobResult>> {
  try {
    if (job.pieces) return { result: await speakInPieces({ ...job, pieces: job.pieces }) };
    const audio = await speak(job);
    const bytes = ownBuffer(await encodeAudio(audio, job.format));
    const result = { bytes, sampleRate: audio.sampleRate, durationSeconds: audio.samples.length / audio.sampleRate };
    return { result, transfer: [bytes] };
  } finally {
    // Once this task's answer is on its way (setImmediate runs after piscina has posted it), get
    // the next synthesis's eSpeak instance ready while the thread is otherwise idle.
    setImmediate(prepareSpareInstance);
  }
}

export default serveTasks(run);
