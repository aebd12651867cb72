import { describe, expect, it } from "@jest/globals";
import { AUDIO_FORMATS } from "@chorus/contracts";
import { voicedSignal } from "../../../test-support/audio/test-signals.js";
import { encodeAudio } from "./encode-audio.js";
import { describeAudioBytes, hasContainerSignature, sniffAudioFormat } from "./sniff-format.js";

describe("sniffAudioFormat", () => {
  it.each(AUDIO_FORMATS.filter((format) => format !== "pcm"))(
    "when the bytes are our %s output, then they are recognized as such",
    async (format) => {
      const bytes = await encodeAudio({ samples: voicedSignal(0.5), sampleRate: 22050 }, format);
      expect(sniffAudioFormat(bytes)).toBe(format);
    },
  );

  it("when an MP3 starts with an ID3 tag, then it is recognized", () => {
    expect(sniffAudioFormat(new TextEncoder().encode("ID3\u0004\u0000"))).toBe("mp3");
  });

  it("when the bytes are raw samples, JSON or Ogg Vorbis, then no format is claimed", () => {
    expect(sniffAudioFormat(new Uint8Array([1, 0, 2, 0, 3, 0]))).toBeUndefined();
    expect(sniffAudioFormat(new TextEncoder().encode('{"error":"no"}'))).toBeUndefined();
    const vorbis = new Uint8Array(64);
    vorbis.set(new TextEncoder().encode("OggS"));
    vorbis.set(new TextEncoder().encode("\u0001vorbis"), 28);
    expect(sniffAudioFormat(vorbis)).toBeUndefined();
    expect(describeAudioBytes(vorbis)).toBe("an Ogg stream that is not Opus");
  });

  it("when the body is empty, then it is described as such", () => {
    expect(describeAudioBytes(new Uint8Array())).toBe("an empty body");
  });

  it("when raw samples start like an MP3 frame sync, then they still have no container signature", () => {
    const samples = new Uint8Array([0xff, 0xe3, 0x10, 0x00]);
    expect(sniffAudioFormat(samples)).toBe("mp3");
    expect(hasContainerSignature(samples)).toBe(false);
    expect(hasContainerSignature(new TextEncoder().encode("RIFF....WAVE"))).toBe(true);
  });
});
