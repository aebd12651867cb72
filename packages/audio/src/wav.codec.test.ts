import { describe, expect, it } from "@jest/globals";
import { decodeWav, encodeWav } from "./wav.codec.js";

function withExtraChunk(wav: Uint8Array): Uint8Array {
  // fmt, then a 3-byte LIST chunk (padded to 4), then data: as some writers lay files out.
  const list = new Uint8Array([0x4c, 0x49, 0x53, 0x54, 3, 0, 0, 0, 1, 2, 3, 0]);
  return new Uint8Array([...wav.subarray(0, 36), ...list, ...wav.subarray(36)]);
}

describe("WAV codec", () => {
  const audio = { samples: Int16Array.from([0, 1, -1, 32767, -32768, 1234]), sampleRate: 16000 };

  it("when encoded then decoded, then samples and rate come back unchanged", () => {
    expect(decodeWav(encodeWav(audio))).toEqual(audio);
  });

  it("when another chunk sits before the data, then decoding walks past it", () => {
    expect(decodeWav(withExtraChunk(encodeWav(audio)))).toEqual(audio);
  });

  it("when the data size says more than the file holds (a streaming writer), then the samples present are read", () => {
    const wav = encodeWav(audio);
    new DataView(wav.buffer).setUint32(40, 0xffffffff, true);
    expect(decodeWav(wav).samples).toEqual(audio.samples);
  });

  it("when the file is not 16-bit mono PCM, then decoding says what it found", () => {
    const wav = encodeWav(audio);
    new DataView(wav.buffer).setUint16(22, 2, true);
    expect(() => decodeWav(wav)).toThrow("unsupported WAV: format 1, 2 channel(s), 16 bits");
  });

  it("when the bytes are not WAV, then decoding throws", () => {
    expect(() => decodeWav(new TextEncoder().encode("ID3 definitely not a wave file"))).toThrow("not a RIFF WAVE file");
    expect(() => decodeWav(encodeWav(audio).subarray(0, 36))).toThrow("no data chunk");
  });
});
