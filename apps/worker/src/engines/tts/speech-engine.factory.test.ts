import { describe, expect, it } from "@jest/globals";
import { EspeakSpeechEngine } from "./espeak.speech-engine.js";
import { OpenAiCompatibleSpeechEngine } from "./openai-compatible.speech-engine.js";
import { createSpeechEngine, parseFormatList, parseVoiceMap } from "./speech-engine.factory.js";

describe("createSpeechEngine", () => {
  it("when the config names espeak, then it builds the eSpeak NG engine (no thread started yet)", async () => {
    const engine = createSpeechEngine({ engine: "espeak", concurrency: 2 });
    expect(engine).toBeInstanceOf(EspeakSpeechEngine);
    expect(engine.name).toBe("espeak-ng");
    expect((engine as EspeakSpeechEngine).threadCount).toBe(0);
    await engine.close();
  });

  it("when the config names openai-compatible, then it builds the remote engine", async () => {
    const engine = createSpeechEngine({
      engine: "openai-compatible",
      baseUrl: "http://127.0.0.1:8880",
      model: "kokoro",
    });
    expect(engine).toBeInstanceOf(OpenAiCompatibleSpeechEngine);
    expect(engine.name).toBe("openai-compatible");
    await engine.close();
  });

  it("when espeak's concurrency is not a whole number >= 1, then building fails", () => {
    expect(() => createSpeechEngine({ engine: "espeak", concurrency: 0 })).toThrow(RangeError);
    expect(() => createSpeechEngine({ engine: "espeak", concurrency: 1.5 })).toThrow(RangeError);
  });
});

describe("parseVoiceMap", () => {
  it("when the JSON maps public voice ids to names, then it is returned as is", () => {
    expect(parseVoiceMap('{"Witch":"af_bella","en-us-male":"am_adam"}')).toEqual({
      Witch: "af_bella",
      "en-us-male": "am_adam",
    });
  });

  it.each([
    ["{", "the voice map is not valid JSON"],
    ['["Witch"]', "the voice map must be a JSON object"],
    ['{"witch":"x","nova":"y"}', "the voice map names unknown voice ids: witch, nova"],
    ['{"Witch":"","Mage":3}', "the voice map gives no server voice name for: Witch, Mage"],
  ])("when the map is %s, then it throws %p", (json, message) => {
    expect(() => parseVoiceMap(json)).toThrow(message);
  });
});

describe("parseFormatList", () => {
  it("when formats are listed with spaces and repeats, then each known one is kept once", () => {
    expect(parseFormatList(" mp3, wav ,mp3,pcm")).toEqual(["mp3", "wav", "pcm"]);
  });

  it("when a format is unknown or none is given, then it throws", () => {
    expect(() => parseFormatList("mp3,aac,ogg")).toThrow("unknown audio formats: aac, ogg");
    expect(() => parseFormatList(" , ")).toThrow("the format list is empty");
  });
});
