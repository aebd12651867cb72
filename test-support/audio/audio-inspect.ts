import { loadFlac } from "@chorus/audio";

// Independent readers of what the encoders write, for tests: each parses the container by its
// specification (not by reusing the writer's code) and, where a decoder is at hand, decodes it.
// Here, not in @chorus/audio, so that its tests and the worker's read the audio the same way.

export function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function rms(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i += 1) sum += (samples[i] as number) ** 2;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

export interface WavInfo {
  format: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  riffSize: number;
  dataBytes: number;
  samples: Int16Array;
  durationSeconds: number;
}

/** The canonical 44-byte header, field by field; throws unless the magic strings are in place. */
export function inspectWav(bytes: Uint8Array): WavInfo {
  const view = viewOf(bytes);
  if (
    ascii(bytes, 0, 4) !== "RIFF" ||
    ascii(bytes, 8, 4) !== "WAVE" ||
    ascii(bytes, 12, 4) !== "fmt " ||
    ascii(bytes, 36, 4) !== "data"
  ) {
    throw new Error(`not a canonical WAV file: ${ascii(bytes, 0, 16)}`);
  }
  const dataBytes = view.getUint32(40, true);
  const samples = pcmFromLittleEndian(bytes.subarray(44, 44 + dataBytes));
  const sampleRate = view.getUint32(24, true);
  return {
    format: view.getUint16(20, true),
    channels: view.getUint16(22, true),
    sampleRate,
    byteRate: view.getUint32(28, true),
    blockAlign: view.getUint16(32, true),
    bitsPerSample: view.getUint16(34, true),
    riffSize: view.getUint32(4, true),
    dataBytes,
    samples,
    durationSeconds: samples.length / sampleRate,
  };
}

export function pcmFromLittleEndian(bytes: Uint8Array): Int16Array {
  const view = viewOf(bytes);
  return Int16Array.from({ length: Math.floor(bytes.length / 2) }, (_, i) => view.getInt16(i * 2, true));
}

export interface FlacInfo {
  minBlockSize: number;
  maxBlockSize: number;
  minFrameSize: number;
  maxFrameSize: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  totalSamples: number;
  md5: string;
  durationSeconds: number;
}

/** "fLaC" and the STREAMINFO block (FLAC format spec, METADATA_BLOCK_STREAMINFO). */
export function inspectFlac(bytes: Uint8Array): FlacInfo {
  if (ascii(bytes, 0, 4) !== "fLaC") throw new Error("no fLaC marker");
  const view = viewOf(bytes);
  if ((view.getUint8(4) & 0x7f) !== 0 || (view.getUint32(4) & 0xffffff) !== 34)
    throw new Error("first block is not a 34-byte STREAMINFO");
  const at = 8;
  const packed = view.getBigUint64(at + 10); // rate:20 channels-1:3 bits-1:5 total:36
  const sampleRate = Number(packed >> 44n);
  const totalSamples = Number(packed & 0xfffffffffn);
  return {
    minBlockSize: view.getUint16(at),
    maxBlockSize: view.getUint16(at + 2),
    minFrameSize: (view.getUint16(at + 4) << 8) | view.getUint8(at + 6),
    maxFrameSize: (view.getUint16(at + 7) << 8) | view.getUint8(at + 9),
    sampleRate,
    channels: Number((packed >> 41n) & 0x7n) + 1,
    bitsPerSample: Number((packed >> 36n) & 0x1fn) + 1,
    totalSamples,
    md5: Buffer.from(bytes.subarray(at + 18, at + 34)).toString("hex"),
    durationSeconds: totalSamples / sampleRate,
  };
}

/** Decodes with libFLAC, MD5 checking on: rejects when the audio does not match STREAMINFO's MD5. */
export async function decodeFlac(bytes: Uint8Array): Promise<Int16Array> {
  const flac = await loadFlac();
  const decoder = flac.create_libflac_decoder(true);
  let offset = 0;
  const parts: Int16Array[] = [];
  const read = (size: number) => {
    const end = Math.min(offset + size, bytes.length);
    const buffer = Uint8Array.from(bytes.subarray(offset, end)); // libflacjs wants an ArrayBuffer-backed array
    offset = end;
    return { buffer, readDataLength: buffer.length, error: false };
  };
  const write = (channels: Uint8Array[]) => void parts.push(pcmFromLittleEndian(channels[0] as Uint8Array));
  try {
    if (
      flac.init_decoder_stream(
        decoder,
        read,
        write,
        () => undefined,
        () => undefined,
      ) !== 0
    )
      throw new Error("FLAC decoder init failed");
    if (!flac.FLAC__stream_decoder_process_until_end_of_stream(decoder)) throw new Error("FLAC decoding failed");
    if (!flac.FLAC__stream_decoder_finish(decoder)) throw new Error("FLAC MD5 check failed");
  } finally {
    flac.FLAC__stream_decoder_delete(decoder);
  }
  return Int16Array.from(parts.flatMap((part) => Array.from(part)));
}
