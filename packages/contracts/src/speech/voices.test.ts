import { describe, expect, it } from "@jest/globals";
import { MODEL_IDS } from "../models.js";
import { AUDIO_FORMATS, AUDIO_FORMAT_INFO, contentTypeFor, isAudioFormat } from "./audio-formats.js";
import { DEFAULT_VOICE, VOICES, VOICE_IDS, isVoiceId, voiceById } from "./voices.js";

describe("voice catalogue", () => {
  it("when listed, then every id is unique", () => {
    expect(new Set(VOICE_IDS).size).toBe(VOICES.length);
  });

  it("when a character model exists, then a voice with the same id belongs to it", () => {
    const characters = MODEL_IDS.filter((model) => model !== "default");
    expect(characters).toEqual(["Witch", "Mage", "Succubus", "Lightning"]);
    for (const character of characters) {
      expect(isVoiceId(character)).toBe(true);
      expect(voiceById(character as never).character).toBe(character);
    }
  });

  it("when generic voices are counted, then several English accents have both a female and a male voice", () => {
    const generic = VOICES.filter((voice) => !("character" in voice));
    const accents = new Set(generic.map((voice) => voice.id.replace(/-(female|male)$/, "")));
    const withBoth = [...accents].filter((accent) =>
      ["female", "male"].every((gender) => generic.some((v) => v.id === `${accent}-${gender}` && v.gender === gender)),
    );
    expect(accents.size).toBeGreaterThanOrEqual(5);
    expect(withBoth.length).toBeGreaterThanOrEqual(4);
    expect(generic.every((voice) => voice.language.startsWith("en"))).toBe(true);
  });

  it("when a voice is listed, then it has a BCP 47 language, a gender and a description", () => {
    for (const voice of VOICES) {
      expect(voice.language).toMatch(/^[a-z]{2}(-[A-Za-z0-9]{2,8})*$/);
      expect(["female", "male"]).toContain(voice.gender);
      expect(voice.description.length).toBeGreaterThan(10);
    }
  });

  it("when no voice is asked for, then the default is a generic catalogue voice", () => {
    expect(isVoiceId(DEFAULT_VOICE)).toBe(true);
    expect(voiceById(DEFAULT_VOICE).character).toBeUndefined();
  });

  it("when a string is not an id, then isVoiceId says so", () => {
    expect(isVoiceId("witch")).toBe(false);
    expect(isVoiceId("")).toBe(false);
  });
});

describe("audio formats", () => {
  it("when listed, then they are exactly the five the API offers", () => {
    expect([...AUDIO_FORMATS]).toEqual(["mp3", "wav", "opus", "flac", "pcm"]);
    expect(isAudioFormat("aac")).toBe(false);
  });

  it.each([
    ["mp3", "audio/mpeg"],
    ["wav", "audio/wav"],
    ["opus", "audio/ogg"],
    ["flac", "audio/flac"],
    ["pcm", "audio/L16;rate=22050"],
  ] as const)("when the format is %s, then the content type is %s", (format, contentType) => {
    expect(contentTypeFor(format, 22050)).toBe(contentType);
  });

  it("when raw pcm has another sample rate, then the content type carries that rate", () => {
    expect(contentTypeFor("pcm", 24000)).toBe("audio/L16;rate=24000");
    expect(AUDIO_FORMAT_INFO.pcm.fileExtension).toBe("pcm");
  });
});
