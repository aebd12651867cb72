import libflacFactory from "libflacjs";
import flacUtils from "libflacjs/lib/utils/index.js";
import type { StreamMetadata } from "libflacjs";
import type { PcmAudio } from "./pcm-audio.js";
import type { StreamEncoder } from "./stream-encoder.js";

type Flac = ReturnType<typeof libflacFactory>;

/** 5 is libFLAC's default: near the best ratio at a fraction of level 8's time. */
const COMPRESSION_LEVEL = 5;

let library: Promise<Flac> | undefined;

/**
 * Loads libFLAC (WASM) once per thread. Its Emscripten loader prefers fetch() whenever it exists,
 * and fetch cannot read a file path in Node: hide fetch for the synchronous part of loading.
 */
export function loadFlac(): Promise<Flac> {
  library ??= new Promise<Flac>((resolve) => {
    const savedFetch = globalThis.fetch;
    (globalThis as { fetch?: typeof fetch }).fetch = undefined;
    let flac: Flac;
    try {
      flac = libflacFactory("wasm");
    } finally {
      globalThis.fetch = savedFetch;
    }
    if (flac.isReady()) resolve(flac);
    else flac.on("ready", () => resolve(flac));
  });
  return library;
}

/** FLAC, 16-bit mono, lossless; STREAMINFO completed with the frame sizes and MD5 known only at the end. */
export async function encodeFlac(audio: PcmAudio): Promise<Uint8Array> {
  const flac = await loadFlac();
  const { samples, sampleRate } = audio;
  const encoder = flac.create_libflac_encoder(sampleRate, 1, 16, COMPRESSION_LEVEL, samples.length, false, 0);
  if (encoder === 0) throw new Error(`libFLAC could not create an encoder for ${sampleRate} Hz`);
  try {
    // Copies: the callback's view may be reused, and the STREAMINFO patch needs offset-0 buffers.
    const chunks: Uint8Array[] = [];
    let metadata: StreamMetadata | undefined;
    const status = flac.init_encoder_stream(
      encoder,
      (data) => void chunks.push(data.slice()),
      (info) => (metadata = info),
    );
    if (status !== 0) throw new Error(`libFLAC encoder init failed (status ${status})`);
    if (!flac.FLAC__stream_encoder_process_interleaved(encoder, Int32Array.from(samples), samples.length)) {
      throw new Error(`libFLAC encoding failed (state ${flac.FLAC__stream_encoder_get_state(encoder)})`);
    }
    if (!flac.FLAC__stream_encoder_finish(encoder)) throw new Error("libFLAC could not finish the stream");
    if (!metadata) throw new Error("libFLAC reported no stream metadata");
    return await flacUtils.exportFlacData(chunks, metadata, false);
  } finally {
    flac.FLAC__stream_encoder_delete(encoder);
  }
}

/**
 * FLAC a piece at a time: STREAMINFO (written first, never patched) says the total samples, frame
 * sizes and MD5 are unknown (0, as the format allows for a stream), then libFLAC's frames as each
 * push completes them (a block is 4096 samples; the rest waits), the last ones at finish.
 */
export async function createFlacStream(sampleRate: number): Promise<StreamEncoder> {
  const flac = await loadFlac();
  const encoder = flac.create_libflac_encoder(sampleRate, 1, 16, COMPRESSION_LEVEL, 0, false, 0);
  if (encoder === 0) throw new Error(`libFLAC could not create an encoder for ${sampleRate} Hz`);
  let written: Uint8Array[] = [];
  const take = (): Uint8Array => {
    const out = Buffer.concat(written);
    written = [];
    return out;
  };
  const status = flac.init_encoder_stream(encoder, (data) => void written.push(data.slice()));
  if (status !== 0) {
    flac.FLAC__stream_encoder_delete(encoder);
    throw new Error(`libFLAC encoder init failed (status ${status})`);
  }
  return {
    header: take(),
    push(samples) {
      if (!flac.FLAC__stream_encoder_process_interleaved(encoder, Int32Array.from(samples), samples.length)) {
        throw new Error(`libFLAC encoding failed (state ${flac.FLAC__stream_encoder_get_state(encoder)})`);
      }
      return Promise.resolve(take());
    },
    finish() {
      if (!flac.FLAC__stream_encoder_finish(encoder)) throw new Error("libFLAC could not finish the stream");
      return Promise.resolve(take());
    },
    dispose: () => flac.FLAC__stream_encoder_delete(encoder),
  };
}
