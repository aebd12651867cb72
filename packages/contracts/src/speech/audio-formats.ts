/** The audio formats a client may ask for, in the order docs/speech.md lists them. */
export const AUDIO_FORMATS = ["mp3", "wav", "opus", "flac", "pcm"] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const DEFAULT_AUDIO_FORMAT: AudioFormat = "mp3";

export interface AudioFormatInfo {
  /** Content type of the response; for `pcm` the sample rate is appended (see contentTypeFor). */
  contentType: string;
  /** For Content-Disposition file names and the CLI. */
  fileExtension: string;
  description: string;
}

export const AUDIO_FORMAT_INFO: Readonly<Record<AudioFormat, AudioFormatInfo>> = {
  mp3: { contentType: "audio/mpeg", fileExtension: "mp3", description: "MPEG-1/2 Layer III, variable bit rate" },
  wav: { contentType: "audio/wav", fileExtension: "wav", description: "RIFF WAVE, 16-bit signed PCM, mono" },
  opus: { contentType: "audio/ogg", fileExtension: "opus", description: "Opus in an Ogg container (RFC 7845)" },
  flac: { contentType: "audio/flac", fileExtension: "flac", description: "FLAC, lossless, 16-bit, mono" },
  pcm: {
    contentType: "audio/L16",
    fileExtension: "pcm",
    description: "raw 16-bit signed little-endian mono samples, no header; the rate is in the content type",
  },
};

export function isAudioFormat(value: string): value is AudioFormat {
  return (AUDIO_FORMATS as readonly string[]).includes(value);
}

/**
 * The Content-Type for audio of `format`. Raw PCM carries no header, so its sample rate travels in
 * the content type (`audio/L16;rate=22050`); the container formats describe themselves.
 */
export function contentTypeFor(format: AudioFormat, sampleRate: number): string {
  const { contentType } = AUDIO_FORMAT_INFO[format];
  return format === "pcm" ? `${contentType};rate=${sampleRate}` : contentType;
}
