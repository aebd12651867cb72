import { describe, expect, it } from "@jest/globals";
import {
  decodeFlac,
  inspectFlac,
  inspectWav,
  pcmFromLittleEndian,
  rms,
} from "../../../test-support/audio/audio-inspect.js";
import { inspectMp3 } from "../../../test-support/audio/mp3-inspect.js";
import { decodeOggOpus, inspectOggOpus } from "../../../test-support/audio/ogg-opus-inspect.js";
import { voicedSignal } from "../../../test-support/audio/test-signals.js";
import { encodeAudio } from "./encode-audio.js";
import type { PcmAudio } from "./pcm-audio.js";

const RATE = 22050;
const SECONDS = 2.5;
const speech: PcmAudio = { samples: voicedSignal(SECONDS, RATE), sampleRate: RATE };
const silence: PcmAudio = { samples: new Int16Array(speech.samples.length), sampleRate: RATE };
const inputRms = rms(speech.samples);

describe("encodeAudio", () => {
  it("when the format is wav, then the 44-byte header describes 16-bit mono at the input rate and the samples follow unchanged", async () => {
    const bytes = await encodeAudio(speech, "wav");
    const wav = inspectWav(bytes);
    expect(bytes.length).toBe(44 + speech.samples.length * 2);
    expect(wav).toMatchObject({
      format: 1,
      channels: 1,
      sampleRate: RATE,
      byteRate: RATE * 2,
      blockAlign: 2,
      bitsPerSample: 16,
    });
    expect(wav.riffSize).toBe(bytes.length - 8);
    expect(wav.dataBytes).toBe(speech.samples.length * 2);
    expect(wav.samples).toEqual(speech.samples);
  });

  it("when the format is pcm, then the bytes are the samples in little-endian order and nothing else", async () => {
    const bytes = await encodeAudio(speech, "pcm");
    expect(bytes.length).toBe(speech.samples.length * 2);
    expect(pcmFromLittleEndian(bytes)).toEqual(speech.samples);
  });

  it("when the format is flac, then STREAMINFO is complete and decoding gives back the exact samples (MD5 checked)", async () => {
    const bytes = await encodeAudio(speech, "flac");
    const info = inspectFlac(bytes);
    expect(info).toMatchObject({
      sampleRate: RATE,
      channels: 1,
      bitsPerSample: 16,
      totalSamples: speech.samples.length,
    });
    expect(info.minFrameSize).toBeGreaterThan(0);
    expect(info.maxFrameSize).toBeGreaterThanOrEqual(info.minFrameSize);
    expect(info.md5).not.toBe("0".repeat(32));
    expect(bytes.length).toBeLessThan(speech.samples.length * 2);
    expect(await decodeFlac(bytes)).toEqual(speech.samples);
  });

  it("when the format is opus, then it is a valid Ogg Opus stream whose length matches the input", async () => {
    const bytes = await encodeAudio(speech, "opus");
    const info = inspectOggOpus(bytes);
    expect(info.head).toEqual({
      version: 1,
      channels: 1,
      preSkip: 312,
      inputSampleRate: RATE,
      outputGain: 0,
      mappingFamily: 0,
    });
    expect(info.tagsMagic).toBe("OpusTags");
    expect(info.pages.every((page) => page.crcValid)).toBe(true);
    expect(info.pages.map((page) => page.sequence)).toEqual(info.pages.map((_, i) => i));
    expect(new Set(info.pages.map((page) => page.serial)).size).toBe(1);
    expect(info.pages.map((page) => page.flags)).toEqual([0x02, ...Array<number>(info.pages.length - 2).fill(0), 0x04]);
    expect(info.pages[0]?.granulePosition).toBe(0n);
    expect(info.pages[1]?.granulePosition).toBe(0n);
    const granules = info.pages.map((page) => page.granulePosition);
    granules.forEach((granule, i) => expect(granule).toBeGreaterThanOrEqual(granules[i - 1] ?? 0n));
    expect(info.durationSeconds).toBeCloseTo(SECONDS, 2);
  });

  it("when opus audio is decoded, then it has the input's length and loudness", async () => {
    const info = inspectOggOpus(await encodeAudio(speech, "opus"));
    const decoded = decodeOggOpus(info);
    expect(decoded.length / 48000).toBeCloseTo(SECONDS, 2);
    expect(rms(decoded)).toBeGreaterThan(inputRms * 0.7);
    expect(rms(decoded)).toBeLessThan(inputRms * 1.3);
  });

  it("when the format is mp3, then every frame is MPEG-2 Layer III at 22050 Hz mono and the frames span the input", async () => {
    const info = inspectMp3(await encodeAudio(speech, "mp3"));
    expect(info).toMatchObject({ version: "2", layer: 3, sampleRate: RATE, channelMode: 3, samplesPerFrame: 576 });
    // LAME adds its encoder delay and pads the last frame: at most a few frames more than the input.
    expect(info.durationSeconds).toBeGreaterThanOrEqual(SECONDS);
    expect(info.durationSeconds).toBeLessThan(SECONDS + 0.15);
  });

  it("when mp3 holds a signal, then its frames are far larger than those of silence of the same length", async () => {
    const signal = inspectMp3(await encodeAudio(speech, "mp3"));
    const quiet = inspectMp3(await encodeAudio(silence, "mp3"));
    expect(quiet.frames).toBe(signal.frames);
    expect(signal.meanFrameBytes).toBeGreaterThan(quiet.meanFrameBytes * 3);
  });

  it.each(["wav", "pcm", "flac", "opus", "mp3"] as const)(
    "when the input is empty, then %s still encodes without error",
    async (format) => {
      const bytes = await encodeAudio({ samples: new Int16Array(0), sampleRate: RATE }, format);
      expect(bytes).toBeInstanceOf(Uint8Array);
    },
  );
});
