import { describe, expect, it } from "@jest/globals";
import { AUDIO_FORMATS } from "@chorus/contracts";
import { decodeFlac, inspectFlac, inspectWav, pcmFromLittleEndian } from "../../../test-support/audio/audio-inspect.js";
import { inspectMp3 } from "../../../test-support/audio/mp3-inspect.js";
import { decodeOggOpus, inspectOggOpus } from "../../../test-support/audio/ogg-opus-inspect.js";
import { voicedSignal } from "../../../test-support/audio/test-signals.js";
import { encodeAudio } from "./encode-audio.js";
import { createStreamEncoder } from "./stream-encoder.factory.js";

const RATE = 22050;
/** Three pieces of uneven lengths (no multiple of any frame size), as sentences come. */
const PIECES = [voicedSignal(0.71, RATE), voicedSignal(1.33, RATE), voicedSignal(0.457, RATE)];
const ALL = Int16Array.from(PIECES.flatMap((piece) => Array.from(piece)));
const SECONDS = ALL.length / RATE;

async function streamed(format: (typeof AUDIO_FORMATS)[number]): Promise<{ parts: Uint8Array[]; bytes: Buffer }> {
  const encoder = await createStreamEncoder(format, RATE);
  try {
    const parts = [encoder.header];
    for (const piece of PIECES) parts.push(await encoder.push(piece));
    parts.push(await encoder.finish());
    return { parts, bytes: Buffer.concat(parts) };
  } finally {
    encoder.dispose();
  }
}

describe("createStreamEncoder", () => {
  it("when wav is streamed, then the header says both sizes are unknown and the samples follow unchanged", async () => {
    const { bytes } = await streamed("wav");
    const wav = inspectWav(bytes);
    expect(wav).toMatchObject({
      format: 1,
      channels: 1,
      sampleRate: RATE,
      byteRate: RATE * 2,
      blockAlign: 2,
      bitsPerSample: 16,
      riffSize: 0xffffffff,
      dataBytes: 0xffffffff,
    });
    expect(wav.samples).toEqual(ALL);
  });

  it("when pcm is streamed, then the bytes are the samples and nothing else", async () => {
    const { parts, bytes } = await streamed("pcm");
    expect(parts[0]).toHaveLength(0);
    expect(pcmFromLittleEndian(bytes)).toEqual(ALL);
  });

  it("when flac is streamed, then STREAMINFO says the length is unknown and decoding gives back the exact samples", async () => {
    const { parts, bytes } = await streamed("flac");
    expect(inspectFlac(parts[0] as Uint8Array)).toMatchObject({
      sampleRate: RATE,
      channels: 1,
      bitsPerSample: 16,
      totalSamples: 0,
      md5: "0".repeat(32),
    });
    expect(await decodeFlac(bytes)).toEqual(ALL);
  });

  it("when opus is streamed, then it is one valid Ogg Opus stream of the input's length, as the whole-file encoder makes it", async () => {
    const { bytes } = await streamed("opus");
    const info = inspectOggOpus(bytes);
    expect(info.pages.every((page) => page.crcValid)).toBe(true);
    expect(info.pages.map((page) => page.sequence)).toEqual(info.pages.map((_, i) => i));
    expect(new Set(info.pages.map((page) => page.serial)).size).toBe(1);
    expect(info.pages.map((page) => page.flags)).toEqual([0x02, ...Array<number>(info.pages.length - 2).fill(0), 0x04]);
    const granules = info.pages.map((page) => page.granulePosition);
    granules.forEach((granule, i) => expect(granule).toBeGreaterThanOrEqual(granules[i - 1] ?? 0n));
    const whole = inspectOggOpus(await encodeAudio({ samples: ALL, sampleRate: RATE }, "opus"));
    expect(info.audioPackets.length).toBe(whole.audioPackets.length);
    expect(info.durationSeconds).toBeCloseTo(SECONDS, 2);
    expect(decodeOggOpus(info).length / 48000).toBeCloseTo(SECONDS, 2);
  });

  it("when mp3 is streamed, then each part ends on a frame boundary and the frames span the input", async () => {
    const { parts, bytes } = await streamed("mp3");
    let at = 0;
    for (const part of parts.slice(1)) {
      at += part.length;
      // A clean chain up to here
      if (part.length > 0 && at < bytes.length) expect(inspectMp3(bytes.subarray(0, at)).frames).toBeGreaterThan(0);
    }
    const info = inspectMp3(bytes);
    expect(info).toMatchObject({ version: "2", layer: 3, sampleRate: RATE, channelMode: 3 });
    expect(info.durationSeconds).toBeGreaterThanOrEqual(SECONDS);
    expect(info.durationSeconds).toBeLessThan(SECONDS + 0.15);
  });
});
