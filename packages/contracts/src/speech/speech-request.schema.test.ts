import { describe, expect, it } from "@jest/globals";
import { Ajv, type ErrorObject } from "ajv";
import { AUDIO_FORMATS } from "./audio-formats.js";
import { SPEECH_LIMITS, type SpeechRequest } from "./speech-request.js";
import { speechRequestSchema } from "./speech-request.schema.js";
import { DEFAULT_VOICE, VOICE_IDS } from "./voices.js";

// `strict: true` as well: the lead's central validator compiles every schema in strict mode.
const validate = new Ajv({ allErrors: false, useDefaults: true, strict: true }).compile(speechRequestSchema);

/** Validates a copy of `body` (ajv fills defaults in place) and returns it with the errors. */
function check(body: unknown): { valid: boolean; value: unknown; error: ErrorObject | undefined } {
  const value = typeof body === "object" && body !== null ? structuredClone(body) : body;
  const valid = validate(value);
  return { valid, value, error: validate.errors?.[0] };
}

function expectRejected(body: unknown, instancePath: string, keyword: string): void {
  const { valid, error } = check(body);
  expect(valid).toBe(false);
  expect(error?.instancePath).toBe(instancePath);
  expect(error?.keyword).toBe(keyword);
}

describe("speechRequestSchema", () => {
  it("when only text is given, then voice, speed and format get their defaults", () => {
    const { valid, value } = check({ text: "Hello" });
    expect(valid).toBe(true);
    const expected: SpeechRequest = { text: "Hello", voice: DEFAULT_VOICE, speed: 1.0, format: "mp3" };
    expect(value).toEqual(expected);
  });

  it("when every field is given, then the body is accepted unchanged", () => {
    const body = { text: "Hi there.", voice: "Witch", speed: 1.5, format: "flac" };
    const { valid, value } = check(body);
    expect(valid).toBe(true);
    expect(value).toEqual(body);
  });

  it.each([...VOICE_IDS])("when voice is %s from the catalogue, then it is accepted", (voice) => {
    expect(check({ text: "Hello", voice }).valid).toBe(true);
  });

  it.each(["Witch", "Mage", "Succubus", "Lightning"])(
    "when voice is the character name %s, then it is accepted",
    (voice) => {
      expect(check({ text: "Hello", voice }).valid).toBe(true);
    },
  );

  it.each([...AUDIO_FORMATS])("when format is %s, then it is accepted", (format) => {
    expect(check({ text: "Hello", format }).valid).toBe(true);
  });

  it.each([SPEECH_LIMITS.speed.min, 0.5, 2, SPEECH_LIMITS.speed.max])(
    "when speed is %s (within 0.25-4.0), then it is accepted",
    (speed) => {
      expect(check({ text: "Hello", speed }).valid).toBe(true);
    },
  );

  it("when text has exactly the maximum number of characters, then it is accepted", () => {
    expect(SPEECH_LIMITS.textMaxChars).toBe(4096);
    expect(check({ text: "a".repeat(4096) }).valid).toBe(true);
  });

  it("when text is 4096 characters outside the Basic Multilingual Plane, then it is accepted (characters, not UTF-16 units)", () => {
    expect(check({ text: "😀".repeat(4096) }).valid).toBe(true);
    expectRejected({ text: "😀".repeat(4097) }, "/text", "maxLength");
  });

  it("when text is one character too long, then it is rejected on maxLength", () => {
    expectRejected({ text: "a".repeat(4097) }, "/text", "maxLength");
  });

  it("when text is missing, then it is rejected on required", () => {
    expectRejected({ voice: "Witch" }, "", "required");
    expect(check({ voice: "Witch" }).error?.params).toEqual({ missingProperty: "text" });
  });

  it("when text is empty, then it is rejected on minLength", () => {
    expectRejected({ text: "" }, "/text", "minLength");
  });

  it("when text is only white space, then it is rejected on pattern", () => {
    expectRejected({ text: " \n\t " }, "/text", "pattern");
  });

  it.each([[42], [null], [["Hello"]]])("when text is %p (not a string), then it is rejected on type", (text) => {
    expectRejected({ text }, "/text", "type");
  });

  it.each([
    [0.24, "minimum"],
    [0, "minimum"],
    [-1, "minimum"],
    [4.01, "maximum"],
    [10, "maximum"],
  ])("when speed is %s, then it is rejected on %s", (speed, keyword) =>
    expectRejected({ text: "Hello", speed }, "/speed", keyword),
  );

  it.each([["1.0"], [null], [true]])("when speed is %p (not a number), then it is rejected on type", (speed) => {
    expectRejected({ text: "Hello", speed }, "/speed", "type");
  });

  it.each(["aac", "MP3", "ogg", ""])("when format is %p, then it is rejected on enum", (format) => {
    expectRejected({ text: "Hello", format }, "/format", "enum");
  });

  it.each(["alloy", "witch", "en-us", ""])(
    "when voice is %p (not in the catalogue), then it is rejected on enum",
    (voice) => {
      expectRejected({ text: "Hello", voice }, "/voice", "enum");
    },
  );

  it("when the body has an unknown field, then it is rejected on additionalProperties", () => {
    expectRejected({ text: "Hello", model: "tts-1" }, "", "additionalProperties");
  });

  it.each([[null], ["Hello"], [["Hello"]]])(
    "when the body is %p (not an object), then it is rejected on type",
    (body) => {
      expectRejected(body, "", "type");
    },
  );
});
