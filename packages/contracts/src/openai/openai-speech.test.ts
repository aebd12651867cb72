import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { isVoiceId, VOICE_IDS } from "../speech/voices.js";
import { isOpenAiSpeechModel, mapOpenAiSpeechRequest, OPENAI_VOICE_MAP } from "./openai-speech.js";

const refusedParameter = (body: object): unknown => {
  try {
    mapOpenAiSpeechRequest(body);
  } catch (error) {
    if (error instanceof ApiError) return error.details?.parameter;
    throw error;
  }
  throw new Error("the body was accepted");
};

describe("mapOpenAiSpeechRequest", () => {
  it("when OpenAI's voice names are listed, then all eleven of the brief map to catalogue voices", () => {
    const names = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"];
    for (const name of names) expect(isVoiceId(OPENAI_VOICE_MAP[name] ?? "")).toBe(true);
  });

  it("when an OpenAI voice is asked for, then the request speaks its catalogue voice, with OpenAI's defaults otherwise", () => {
    expect(mapOpenAiSpeechRequest({ model: "tts-1", input: "Hi.", voice: "onyx" })).toEqual({
      text: "Hi.",
      voice: "Mage",
      format: "mp3",
      speed: 1,
    });
  });

  it.each([...VOICE_IDS])("when the catalogue voice %s is asked for, then it is used as it is", (voice) => {
    expect(mapOpenAiSpeechRequest({ model: "tts-1", input: "Hi.", voice }).voice).toBe(voice);
  });

  it("when format and speed are given, then they are the request's", () => {
    expect(
      mapOpenAiSpeechRequest({ model: "tts-1", input: "Hi.", voice: "alloy", response_format: "pcm", speed: 1.5 }),
    ).toMatchObject({ format: "pcm", speed: 1.5 });
  });

  it.each([
    ["aac", { response_format: "aac" }, "response_format"],
    ["an unknown voice", { voice: "gandalf" }, "voice"],
    ["speed 5", { speed: 5 }, "speed"],
    ["instructions", { instructions: "Whisper." }, "instructions"],
    ["stream_format sse", { stream_format: "sse" }, "stream_format"],
    ["no input", { input: undefined }, "input"],
  ])("when %s is sent, then 400 names %s", (_label, extra, parameter) => {
    expect(refusedParameter({ model: "tts-1", input: "Hi.", voice: "alloy", ...extra })).toBe(parameter);
  });

  it("when OpenAI's speech model names are checked, then they are speech models and a text model is not", () => {
    expect(["tts-1", "tts-1-hd", "gpt-4o-mini-tts"].every(isOpenAiSpeechModel)).toBe(true);
    expect(isOpenAiSpeechModel("default")).toBe(false);
  });
});
