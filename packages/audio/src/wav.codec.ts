import { int16ToLittleEndianBytes, type PcmAudio } from "./pcm-audio.js";

// A WAV file is a 44-byte header in front of the samples: a library would add nothing but a dependency.
const HEADER_BYTES = 44;

/**
 * The largest size a RIFF field holds: what a WAV written as it is made says for sizes it cannot
 * know (as ffmpeg writes to a pipe); readers take it as "up to the end of the file".
 */
export const UNKNOWN_WAV_SIZE = 0xffffffff;

/** RIFF WAVE, PCM format 1, 16-bit, mono. */
export function encodeWav(audio: PcmAudio): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + audio.samples.length * 2);
  writeWavHeader(out, audio.sampleRate, audio.samples.length * 2);
  out.set(int16ToLittleEndianBytes(audio.samples), HEADER_BYTES);
  return out;
}

/** The header of a WAV whose length is not known yet: both sizes UNKNOWN_WAV_SIZE; the samples follow as they come. */
export function streamingWavHeader(sampleRate: number): Uint8Array {
  const header = new Uint8Array(HEADER_BYTES);
  writeWavHeader(header, sampleRate, null);
  return header;
}

/** The 44-byte header at the start of `out`; `dataBytes` null: not known. */
function writeWavHeader(out: Uint8Array, sampleRate: number, dataBytes: number | null): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const ascii = (offset: number, text: string): void => {
    for (let i = 0; i < text.length; i += 1) out[offset + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, dataBytes === null ? UNKNOWN_WAV_SIZE : 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // channels
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, dataBytes ?? UNKNOWN_WAV_SIZE, true);
}

function fourCc(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}

/**
 * Reads 16-bit mono PCM out of a WAV file, walking the chunks rather than assuming 44 bytes of
 * header (writers add LIST or fact chunks). A data size past the end of the file, as streaming
 * writers leave it, is read as "up to the end".
 */
export function decodeWav(bytes: Uint8Array): PcmAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || fourCc(view, 0) !== "RIFF" || fourCc(view, 8) !== "WAVE")
    throw new Error("not a RIFF WAVE file");
  let sampleRate: number | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = fourCc(view, offset);
    const size = view.getUint32(offset + 4, true);
    if (id === "fmt ") {
      const [format, channels, bits] = [
        view.getUint16(offset + 8, true),
        view.getUint16(offset + 10, true),
        view.getUint16(offset + 22, true),
      ];
      if (format !== 1 || channels !== 1 || bits !== 16) {
        throw new Error(
          `unsupported WAV: format ${format}, ${channels} channel(s), ${bits} bits (want PCM, mono, 16 bits)`,
        );
      }
      sampleRate = view.getUint32(offset + 12, true);
    } else if (id === "data") {
      if (sampleRate === undefined) throw new Error("WAV data chunk before its fmt chunk");
      const end = Math.min(bytes.length, offset + 8 + size);
      const count = Math.floor((end - offset - 8) / 2);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i += 1) samples[i] = view.getInt16(offset + 8 + i * 2, true);
      return { samples, sampleRate };
    }
    offset += 8 + size + (size % 2); // chunks are padded to an even size
  }
  throw new Error("WAV file has no data chunk");
}
