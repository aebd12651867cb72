import type { AudioFormat } from "@chorus/contracts";

/**
 * The container the bytes start with, by their magic numbers, or undefined when none matches (raw
 * PCM has no magic, so it is never recognized). Used to catch a remote server that ignores the
 * requested format: its audio would otherwise go out under the wrong content type.
 */
export function sniffAudioFormat(bytes: Uint8Array): Exclude<AudioFormat, "pcm"> | undefined {
  const text = (start: number, length: number): string => String.fromCharCode(...bytes.subarray(start, start + length));
  if (text(0, 4) === "RIFF" && text(8, 4) === "WAVE") return "wav";
  if (text(0, 4) === "fLaC") return "flac";
  // Opus specifically: an Ogg stream whose first packet is OpusHead (Ogg Vorbis would be "\x01vorbis").
  if (text(0, 4) === "OggS" && text(28, 8) === "OpusHead") return "opus";
  if (text(0, 3) === "ID3") return "mp3";
  if (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe6) === 0xe2) return "mp3"; // frame sync + Layer III
  return undefined;
}

/**
 * Whether the bytes open with a container's unambiguous signature (RIFF, fLaC, OggS, ID3). Raw PCM
 * is checked with this, not sniffAudioFormat: a first sample can happen to look like an MP3 frame sync.
 */
export function hasContainerSignature(bytes: Uint8Array): boolean {
  return (
    ["RIFF", "fLaC", "OggS"].includes(String.fromCharCode(...bytes.subarray(0, 4))) ||
    String.fromCharCode(...bytes.subarray(0, 3)) === "ID3"
  );
}

/** A human name for what the bytes look like, for error messages. */
export function describeAudioBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) return "an empty body";
  const format = sniffAudioFormat(bytes);
  if (format) return `${format} audio`;
  if (String.fromCharCode(...bytes.subarray(0, 4)) === "OggS") return "an Ogg stream that is not Opus";
  return "data in no known audio container";
}
