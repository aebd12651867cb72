import { ascii } from "./audio-inspect.js";

export interface Mp3Info {
  /** "1", "2" or "2.5" (MPEG version). */
  version: string;
  layer: number;
  sampleRate: number;
  channelMode: number;
  /** Audio frames, not counting a leading Xing/Info tag frame. */
  frames: number;
  hasXingTag: boolean;
  samplesPerFrame: number;
  /** Mean bytes per audio frame: silence encodes near LAME's minimum, speech well above it. */
  meanFrameBytes: number;
  durationSeconds: number;
}

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<string, number[]> = {
  "1": [44100, 48000, 32000],
  "2": [22050, 24000, 16000],
  "2.5": [11025, 12000, 8000],
};

interface FrameHeader {
  version: string;
  layer: number;
  sampleRate: number;
  channelMode: number;
  length: number;
  samples: number;
}

/** One MPEG audio frame header (ISO 11172-3 / 13818-3), or undefined when the 4 bytes are not one. */
function frameHeader(bytes: Uint8Array, at: number): FrameHeader | undefined {
  const [b0, b1, b2, b3] = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]] as number[];
  if (b0 !== 0xff || (b1! & 0xe0) !== 0xe0) return undefined;
  const version = ({ 0: "2.5", 2: "2", 3: "1" } as Record<number, string>)[(b1! >> 3) & 3];
  const layer = 4 - ((b1! >> 1) & 3);
  const sampleRate = version ? RATES[version]?.[(b2! >> 2) & 3] : undefined;
  const bitrate = (version === "1" ? BITRATES_V1_L3 : BITRATES_V2_L3)[b2! >> 4];
  if (!version || layer !== 3 || !sampleRate || !bitrate) return undefined;
  const padding = (b2! >> 1) & 1;
  const samples = version === "1" ? 1152 : 576;
  return {
    version,
    layer,
    sampleRate,
    channelMode: b3! >> 6,
    length: Math.floor(((samples / 8) * bitrate * 1000) / sampleRate) + padding,
    samples,
  };
}

/** Walks the frames from the first sync (after an ID3v2 tag, if any) to the end; throws on a broken chain. */
export function inspectMp3(bytes: Uint8Array): Mp3Info {
  let offset =
    ascii(bytes, 0, 3) === "ID3" ? 10 + ((bytes[6]! << 21) | (bytes[7]! << 14) | (bytes[8]! << 7) | bytes[9]!) : 0;
  const first = frameHeader(bytes, offset);
  if (!first) throw new Error(`no MPEG audio frame at byte ${offset}`);
  const tagAt =
    offset + 4 + (first.version === "1" ? (first.channelMode === 3 ? 17 : 32) : first.channelMode === 3 ? 9 : 17);
  const hasXingTag = ["Xing", "Info"].includes(ascii(bytes, tagAt, 4));
  let frames = 0;
  let audioBytes = 0;
  for (let index = 0; offset < bytes.length; index += 1) {
    const header = frameHeader(bytes, offset);
    if (!header || header.sampleRate !== first.sampleRate) throw new Error(`broken frame chain at byte ${offset}`);
    if (!(index === 0 && hasXingTag)) {
      frames += 1;
      audioBytes += header.length;
    }
    offset += header.length;
  }
  return {
    version: first.version,
    layer: first.layer,
    sampleRate: first.sampleRate,
    channelMode: first.channelMode,
    frames,
    hasXingTag,
    samplesPerFrame: first.samples,
    meanFrameBytes: frames === 0 ? 0 : audioBytes / frames,
    durationSeconds: (frames * first.samples) / first.sampleRate,
  };
}
