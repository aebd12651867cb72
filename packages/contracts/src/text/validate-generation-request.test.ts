import { ApiError } from "../errors.js";
import { DEFAULT_BOT_NAME, REQUEST_LIMITS as L, SAMPLING_BOUNDS as S } from "../limits.js";
import type { ModelId } from "../models.js";
import { sentSamplingParams, validateGenerationRequest } from "./validate-generation-request.js";

// Request validation for the `default` model, plus the rules shared by every model
// (roles, content, positions, sampling parameters, limits, unknown fields, wrong types).
// Character-model specifics live in validate-generation-request.character.test.ts.

type Json = Record<string, unknown>;

/** A valid `default` message at `position`, alternating roles. */
function message(position: number, overrides: Json = {}): Json {
  return { role: position % 2 === 0 ? "You" : "Bot", content: `message ${position}`, index: position, ...overrides };
}

/** A valid `default` body with `count` messages in order. */
function body(overrides: Json = {}, count = 1): Json {
  return { messages: Array.from({ length: count }, (_, i) => message(i)), ...overrides };
}

function without(object: Json, ...keys: string[]): Json {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}

/** Runs `fn` and returns the ApiError it throws; fails the test when it throws nothing or something else. */
function captureApiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError to be thrown, but the call returned normally");
}

function expectInvalidParameter(model: ModelId, input: unknown, parameter: string, expectedType: string): ApiError {
  const error = captureApiError(() => validateGenerationRequest(model, input));
  const { problems, ...first } = error.details ?? {};
  expect({ code: error.code, httpStatus: error.httpStatus, details: first }).toEqual({
    code: "INVALID_PARAMETER",
    httpStatus: 400,
    details: { parameter, expected_type: expectedType },
  });
  expect(error.message).not.toBe("");
  // details.problems lists every problem of the request, the one described above first.
  expect((problems as unknown[])[0]).toEqual({ parameter, expected_type: expectedType, message: error.message });
  return error;
}

const rejects = (input: unknown, parameter: string, expectedType: string): ApiError =>
  expectInvalidParameter("default", input, parameter, expectedType);
const accepts = (input: unknown) => validateGenerationRequest("default", input);

const DEFAULT_SAMPLING = { max_tokens: S.maxTokens.default, temperature: S.temperature.default, top_p: S.topP.default };
const MESSAGES_TYPE = "array of object";

describe("validateGenerationRequest on the default model", () => {
  describe("a minimal valid request", () => {
    it("when only messages with role, content and index are sent, then it is accepted", () => {
      expect(() => accepts(body())).not.toThrow();
    });

    it("when optional fields are absent, then botName, samplingParams and their defaults are filled", () => {
      expect(accepts(body())).toEqual({
        messages: [{ role: "You", content: "message 0", index: 0 }],
        botName: DEFAULT_BOT_NAME,
        samplingParams: DEFAULT_SAMPLING,
      });
    });

    it("when botName is absent, then it defaults to Assistant", () => {
      expect(DEFAULT_BOT_NAME).toBe("Assistant");
      expect(accepts(body()).botName).toBe("Assistant");
    });

    it("when persona is absent, then the result has no persona", () => {
      expect(accepts(body())).not.toHaveProperty("persona");
    });

    it("when upvote is absent on a default message, then no upvote is filled in", () => {
      expect(accepts(body()).messages[0]).not.toHaveProperty("upvote");
    });

    it("when every optional field is sent, then all of them are kept unchanged", () => {
      const full = {
        messages: [
          message(0, {
            id: "m-0",
            messageIndex: 0,
            chatId: "chat-1",
            userId: "user-1",
            createdAt: "2024-05-01T12:00:00Z",
            upvote: 3,
            image: "https://example.com/a.png",
          }),
          message(1, { image: null }),
        ],
        persona: "A calm and helpful assistant.",
        botName: "Helper",
        samplingParams: { max_tokens: 42, temperature: 1.3, top_p: 0.5 },
      };
      expect(accepts(structuredClone(full))).toEqual(full);
    });
  });

  describe("required fields", () => {
    it.each([
      ["an empty object", {}],
      ["only optional fields", { persona: "p", botName: "b", samplingParams: {} }],
    ])("when the body is %s (messages absent), then messages is reported as required", (_, input) => {
      const error = rejects(input, "messages", MESSAGES_TYPE);
      expect(error.message).toBe("messages is required");
    });

    it.each(["role", "content"])("when a message lacks %s, then that message field is reported", (field) => {
      const input = body({}, 3);
      (input.messages as Json[])[2] = without(message(2), field);
      rejects(input, `messages[2].${field}`, "string");
    });

    it("when a message has neither index nor messageIndex, then messages[i].index is reported as an integer", () => {
      const input = body({}, 3);
      (input.messages as Json[])[1] = without(message(1), "index");
      const error = rejects(input, "messages[1].index", "integer");
      expect(error.message).toContain("messageIndex");
    });

    it.each(["id", "chatId", "userId", "createdAt", "messageIndex", "upvote", "image"])(
      "when a message lacks the character-only field %s, then it is still accepted",
      (field) => {
        const input = body({
          messages: [
            without(
              message(0, {
                id: "m",
                chatId: "c",
                userId: "u",
                createdAt: "2024-01-01T00:00:00Z",
                messageIndex: 0,
                upvote: 0,
                image: null,
              }),
              field,
            ),
          ],
        });
        expect(() => accepts(input)).not.toThrow();
      },
    );

    it("when botName is absent, then the request is accepted (only character models require it)", () => {
      expect(() => accepts(without(body({ botName: "x" }), "botName"))).not.toThrow();
    });
  });

  describe("role", () => {
    it.each(["You", "Bot"])("when role is %s, then it is accepted", (role) => {
      expect(accepts(body({ messages: [message(0, { role })] })).messages[0]?.role).toBe(role);
    });

    it.each(["you", "bot", "YOU", "User", "user", "Assistant", "assistant", "system", "", " You"])(
      "when role is %j, then messages[0].role is rejected",
      (role) => {
        const error = rejects(body({ messages: [message(0, { role })] }), "messages[0].role", "string");
        expect(error.message).toBe("messages[0].role must be one of: You, Bot");
      },
    );
  });

  describe("content", () => {
    it("when content is empty, then it is rejected as empty", () => {
      const error = rejects(body({ messages: [message(0, { content: "" })] }), "messages[0].content", "string");
      expect(error.message).toBe("messages[0].content must not be empty");
    });

    it.each([" ", "   ", "\t", "\n", "\r\n", " \t\n ", "\u00a0", "\u2003", "\u3000"])(
      "when content is blank (%j), then it is rejected as blank",
      (content) => {
        const error = rejects(body({ messages: [message(0, { content })] }), "messages[0].content", "string");
        expect(error.message).toBe("messages[0].content must not be blank");
      },
    );

    it.each(["a", " a ", "\n.\n", "0", "😀"])("when content is %j, then it is accepted unchanged", (content) => {
      expect(accepts(body({ messages: [message(0, { content })] })).messages[0]?.content).toBe(content);
    });

    it("when content is exactly at maxMessageChars, then it is accepted", () => {
      expect(() => accepts(body({ messages: [message(0, { content: "x".repeat(L.maxMessageChars) })] }))).not.toThrow();
    });

    it("when content is maxMessageChars astral characters (emoji), then the limit counts characters, not UTF-16 units", () => {
      expect(() =>
        accepts(body({ messages: [message(0, { content: "😀".repeat(L.maxMessageChars) })] })),
      ).not.toThrow();
      rejects(
        body({ messages: [message(0, { content: "😀".repeat(L.maxMessageChars + 1) })] }),
        "messages[0].content",
        "string",
      );
    });

    it("when content is one character over maxMessageChars, then it is rejected at its own path", () => {
      const input = body({}, 3);
      (input.messages as Json[])[2] = message(2, { content: "x".repeat(L.maxMessageChars + 1) });
      const error = rejects(input, "messages[2].content", "string");
      expect(error.message).toContain(String(L.maxMessageChars));
    });

    it("when a later message is blank, then the error names that message's position in the array", () => {
      const input = body({}, 3);
      (input.messages as Json[])[2] = message(2, { content: "  " });
      rejects(input, "messages[2].content", "string");
    });
  });

  describe("message count", () => {
    it("when messages is empty, then it is rejected", () => {
      const error = rejects(body({ messages: [] }), "messages", MESSAGES_TYPE);
      expect(error.message).toBe("messages must have at least 1 item(s)");
    });

    it("when there is exactly one message, then it is accepted", () => {
      expect(accepts(body({}, 1)).messages).toHaveLength(1);
    });

    it("when there are exactly maxMessages messages, then they are accepted", () => {
      expect(accepts(body({}, L.maxMessages)).messages).toHaveLength(L.maxMessages);
    });

    it("when there are maxMessages + 1 messages, then messages is rejected", () => {
      const error = rejects(body({}, L.maxMessages + 1), "messages", MESSAGES_TYPE);
      expect(error.message).toBe(`messages must have at most ${L.maxMessages} items`);
    });
  });

  describe("positions", () => {
    const positioned = (entries: Json[]) =>
      body({ messages: entries.map((e, i) => ({ role: "You", content: `c${i}`, ...e })) });
    const contents = (input: Json) => accepts(input).messages.map((m) => m.content);

    it("when indexes are 0, 1, 2 in array order, then the order is kept", () => {
      expect(contents(positioned([{ index: 0 }, { index: 1 }, { index: 2 }]))).toEqual(["c0", "c1", "c2"]);
    });

    it.each([
      [
        [2, 0, 1],
        ["c1", "c2", "c0"],
      ],
      [
        [1, 0],
        ["c1", "c0"],
      ],
      [
        [3, 2, 1, 0],
        ["c3", "c2", "c1", "c0"],
      ],
    ])("when indexes arrive in array order %j, then the result is sorted by index", (indexes, expected) => {
      expect(contents(positioned(indexes.map((index) => ({ index }))))).toEqual(expected);
    });

    it("when messages carry only messageIndex, then messageIndex is used as the position", () => {
      expect(contents(positioned([{ messageIndex: 1 }, { messageIndex: 0 }]))).toEqual(["c1", "c0"]);
    });

    it("when some messages use index and others only messageIndex, then both are positions", () => {
      expect(contents(positioned([{ messageIndex: 2 }, { index: 0 }, { messageIndex: 1 }]))).toEqual([
        "c1",
        "c2",
        "c0",
      ]);
    });

    it("when both index and messageIndex are present, then index wins", () => {
      const input = positioned([
        { index: 1, messageIndex: 0 },
        { index: 0, messageIndex: 1 },
      ]);
      expect(contents(input)).toEqual(["c1", "c0"]);
    });

    it("when both are present and messageIndex is out of range, then index still decides and the request is accepted", () => {
      expect(contents(positioned([{ index: 0, messageIndex: 99 }]))).toEqual(["c0"]);
    });

    it("when messages are reordered, then the message objects are kept whole (not rebuilt)", () => {
      const input = positioned([
        { index: 1, id: "b" },
        { index: 0, id: "a" },
      ]);
      const [second, first] = input.messages as Json[];
      const result = accepts(input);
      expect(result.messages[0]).toBe(first);
      expect(result.messages[1]).toBe(second);
    });

    it.each([
      ["duplicate index", [{ index: 0 }, { index: 0 }], "messages[1].index"],
      ["duplicate index later on", [{ index: 0 }, { index: 1 }, { index: 1 }], "messages[2].index"],
      ["duplicate messageIndex", [{ messageIndex: 0 }, { messageIndex: 0 }], "messages[1].messageIndex"],
      [
        "index and messageIndex naming the same position",
        [{ index: 0 }, { messageIndex: 0 }],
        "messages[1].messageIndex",
      ],
      ["messageIndex then index naming the same position", [{ messageIndex: 1 }, { index: 1 }], "messages[1].index"],
      ["a gap (0, 2)", [{ index: 0 }, { index: 2 }], "messages[1].index"],
      ["a start at 1", [{ index: 1 }], "messages[0].index"],
      ["a start at 1 (1, 2)", [{ index: 1 }, { index: 2 }], "messages[1].index"],
      ["a position past the end first", [{ index: 2 }, { index: 0 }], "messages[0].index"],
      ["a far-out messageIndex", [{ messageIndex: 0 }, { messageIndex: 1000 }], "messages[1].messageIndex"],
    ])("when positions contain %s, then the offending message position is rejected", (_, entries, parameter) => {
      const error = rejects(positioned(entries), parameter, "integer");
      expect(error.message).toContain("0, 1, 2, ... consecutive");
    });

    it.each([
      ["index", -1],
      ["index", -100],
      ["messageIndex", -1],
    ])("when %s is negative (%d), then it is rejected", (field, value) => {
      const error = rejects(positioned([{ [field]: value }]), `messages[0].${field}`, "integer");
      expect(error.message).toBe(`messages[0].${field} must be >= 0`);
    });

    it.each([
      ["index", 0.5],
      ["index", 1.5],
      ["messageIndex", 0.5],
    ])("when %s is not an integer (%d), then it is rejected", (field, value) => {
      rejects(positioned([{ index: 0 }, { [field]: value }]), `messages[1].${field}`, "integer");
    });

    it("when index is a float with an integral value (1.0), then it is accepted as an integer", () => {
      expect(contents(positioned([{ index: 1.0 }, { index: 0.0 }]))).toEqual(["c1", "c0"]);
    });

    it("when index is valid and messageIndex is negative, then messageIndex is still type-checked", () => {
      rejects(positioned([{ index: 0, messageIndex: -1 }]), "messages[0].messageIndex", "integer");
    });

    it("when index is negative and messageIndex is valid, then index is rejected", () => {
      rejects(positioned([{ index: -1, messageIndex: 0 }]), "messages[0].index", "integer");
    });
  });

  describe("sampling parameters", () => {
    const sampling = (params: Json) => body({ samplingParams: params });

    it("when samplingParams is absent, then all three defaults are filled", () => {
      expect(accepts(body()).samplingParams).toEqual({ max_tokens: 150, temperature: 0.7, top_p: 0.9 });
      expect(DEFAULT_SAMPLING).toEqual({ max_tokens: 150, temperature: 0.7, top_p: 0.9 });
    });

    it("when samplingParams is an empty object, then all three defaults are filled", () => {
      expect(accepts(sampling({})).samplingParams).toEqual(DEFAULT_SAMPLING);
    });

    it.each([
      [{ max_tokens: 10 }, { ...DEFAULT_SAMPLING, max_tokens: 10 }],
      [{ temperature: 1.5 }, { ...DEFAULT_SAMPLING, temperature: 1.5 }],
      [{ top_p: 0.3 }, { ...DEFAULT_SAMPLING, top_p: 0.3 }],
      [
        { max_tokens: 1, top_p: 1 },
        { ...DEFAULT_SAMPLING, max_tokens: 1, top_p: 1 },
      ],
    ])("when samplingParams is partial (%j), then only the missing ones get defaults", (params, expected) => {
      expect(accepts(sampling(params)).samplingParams).toEqual(expected);
    });

    it("when two requests are validated, then they do not share the defaulted samplingParams object", () => {
      const first = accepts(body());
      const second = accepts(body());
      expect(first.samplingParams).not.toBe(second.samplingParams);
      first.samplingParams.max_tokens = 1;
      expect(second.samplingParams.max_tokens).toBe(S.maxTokens.default);
      expect(accepts(body()).samplingParams.max_tokens).toBe(S.maxTokens.default);
    });

    it.each([
      ["max_tokens", S.maxTokens.min],
      ["max_tokens", S.maxTokens.max],
      ["max_tokens", S.maxTokens.default],
      ["temperature", S.temperature.min],
      ["temperature", S.temperature.max],
      ["temperature", S.temperature.default],
      ["temperature", 1],
      ["top_p", S.topP.max],
      ["top_p", S.topP.default],
      ["top_p", 1e-9],
      ["top_p", Number.MIN_VALUE],
    ])("when %s is %d (within bounds), then it is accepted", (field, value) => {
      expect(accepts(sampling({ [field]: value })).samplingParams[field as "max_tokens"]).toBe(value);
    });

    it("when the limits are read from SAMPLING_BOUNDS, then they match the spec", () => {
      expect(S).toEqual({
        maxTokens: { min: 1, max: 2048, default: 150 },
        temperature: { min: 0.1, max: 2.0, default: 0.7 },
        topP: { exclusiveMin: 0, max: 1, default: 0.9 },
        seed: { min: 0, max: 4294967295 },
        presencePenalty: { min: -2, max: 2 },
        frequencyPenalty: { min: -2, max: 2 },
        topK: { min: 0, max: 1000 },
        minP: { min: 0, max: 1 },
        repetitionPenalty: { exclusiveMin: 0, max: 2 },
        typicalP: { exclusiveMin: 0, max: 1 },
        logitBias: { min: -100, max: 100, maxEntries: 300 },
      });
    });

    it.each([0, 1, 42, 2 ** 32 - 1])(
      "when seed is %d (an extension: an integer from 0 to 2^32-1), then it is kept",
      (seed) => {
        expect(accepts(sampling({ seed })).samplingParams.seed).toBe(seed);
      },
    );

    it("when seed is absent, then none is filled in (each job draws its own)", () => {
      expect(accepts(body()).samplingParams).not.toHaveProperty("seed");
    });

    it.each([1.5, -1, 2 ** 32, "7", null, true, [1], {}])(
      "when seed is %j, then it is rejected naming samplingParams.seed",
      (seed) => {
        rejects(sampling({ seed }), "samplingParams.seed", "integer");
      },
    );

    it("when a seed is sent, then it counts among the sampling fields the client chose", () => {
      expect(sentSamplingParams({ samplingParams: { seed: 9, top_p: 0.5 } })).toEqual({ seed: 9, top_p: 0.5 });
    });

    it.each([
      ["max_tokens", S.maxTokens.min - 1, "integer", `>= ${S.maxTokens.min}`],
      ["max_tokens", -1, "integer", `>= ${S.maxTokens.min}`],
      ["max_tokens", S.maxTokens.max + 1, "integer", `<= ${S.maxTokens.max}`],
      ["temperature", S.temperature.min - 1e-9, "number", `>= ${S.temperature.min}`],
      ["temperature", 0, "number", `>= ${S.temperature.min}`],
      ["temperature", -1, "number", `>= ${S.temperature.min}`],
      ["temperature", S.temperature.max + 1e-9, "number", `<= ${S.temperature.max}`],
      ["top_p", S.topP.exclusiveMin, "number", `> ${S.topP.exclusiveMin}`],
      ["top_p", -0.1, "number", `> ${S.topP.exclusiveMin}`],
      ["top_p", S.topP.max + 1e-9, "number", `<= ${S.topP.max}`],
      ["top_p", 2, "number", `<= ${S.topP.max}`],
    ])("when %s is %d (just outside the bounds), then it is rejected", (field, value, expectedType, bound) => {
      const error = rejects(sampling({ [field]: value }), `samplingParams.${field}`, expectedType);
      expect(error.message).toBe(`samplingParams.${field} must be ${bound}`);
    });

    it.each([1.5, S.maxTokens.max - 0.5, 0.1])(
      "when max_tokens is fractional (%d), then it is rejected as an integer",
      (value) => {
        rejects(sampling({ max_tokens: value }), "samplingParams.max_tokens", "integer");
      },
    );

    it.each([
      ["max_tokens", "integer"],
      ["temperature", "number"],
      ["top_p", "number"],
    ])("when %s is not finite, then it is rejected", (field, expectedType) => {
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        rejects(sampling({ [field]: value }), `samplingParams.${field}`, expectedType);
      }
    });
  });

  describe("botName and persona", () => {
    it.each(["Helper", "x", "  padded  ", "x".repeat(L.maxBotNameChars)])(
      "when botName is %j, then it is kept",
      (botName) => {
        expect(accepts(body({ botName })).botName).toBe(botName);
      },
    );

    it("when botName is empty, then it is rejected as empty", () => {
      const error = rejects(body({ botName: "" }), "botName", "string");
      expect(error.message).toBe("botName must not be empty");
    });

    it.each([" ", "\t\n", "   "])("when botName is blank (%j), then it is rejected as blank", (botName) => {
      const error = rejects(body({ botName }), "botName", "string");
      expect(error.message).toBe("botName must not be blank");
    });

    it("when botName is one character over maxBotNameChars, then it is rejected", () => {
      const error = rejects(body({ botName: "x".repeat(L.maxBotNameChars + 1) }), "botName", "string");
      expect(error.message).toContain(String(L.maxBotNameChars));
    });

    it("when persona is exactly maxPersonaChars long, then it is accepted and kept", () => {
      const persona = "p".repeat(L.maxPersonaChars);
      expect(accepts(body({ persona })).persona).toBe(persona);
    });

    it("when persona is one character over maxPersonaChars, then it is rejected", () => {
      const error = rejects(body({ persona: "p".repeat(L.maxPersonaChars + 1) }), "persona", "string");
      expect(error.message).toContain(String(L.maxPersonaChars));
    });
  });

  describe("optional message fields", () => {
    const one = (overrides: Json) => body({ messages: [message(0, overrides)] });

    it.each([
      ["id", "x".repeat(L.maxIdChars)],
      ["chatId", "x".repeat(L.maxIdChars)],
      ["userId", "x".repeat(L.maxIdChars)],
      ["image", "x".repeat(L.maxImageUrlChars)],
      ["image", null],
      ["upvote", -3],
      ["upvote", 0.5],
      ["createdAt", "2024-05-01T12:00:00.123+02:00"],
    ])("when %s is %j, then it is accepted", (field, value) => {
      expect(accepts(one({ [field]: value })).messages[0]?.[field as "id"]).toBe(value);
    });

    it.each([
      ["id", "x".repeat(L.maxIdChars + 1), "string"],
      ["chatId", "x".repeat(L.maxIdChars + 1), "string"],
      ["userId", "x".repeat(L.maxIdChars + 1), "string"],
      ["id", "", "string"],
      ["chatId", " ", "string"],
      ["image", "x".repeat(L.maxImageUrlChars + 1), "string or null"],
      ["createdAt", "yesterday", "string (ISO 8601 date-time)"],
    ])("when %s is %j, then it is rejected even on the default model", (field, value, expectedType) => {
      rejects(one({ [field]: value }), `messages[0].${field}`, expectedType);
    });
  });

  describe("unknown fields", () => {
    it.each(["model", "bot_name", "Messages", "stream", "temperature", "max_tokens", "messages ", "__proto__x"])(
      "when the body has the unknown top-level field %j, then that field is named",
      (field) => {
        const error = rejects({ ...body(), [field]: 1 }, field, "none (unknown field)");
        expect(error.message).toBe(`${field} is not a known field`);
      },
    );

    it.each(["name", "text", "Role", "timestamp", "position", "botName"])(
      "when a message has the unknown field %j, then messages[i].<field> is named",
      (field) => {
        const input = body({}, 2);
        (input.messages as Json[])[1] = message(1, { [field]: "x" });
        rejects(input, `messages[1].${field}`, "none (unknown field)");
      },
    );

    it.each(["maxTokens", "topP", "topK", "stop", "Temperature", "mirostat"])(
      "when samplingParams has the unknown field %j, then samplingParams.<field> is named",
      (field) => {
        rejects(body({ samplingParams: { [field]: 1 } }), `samplingParams.${field}`, "none (unknown field)");
      },
    );

    // BUG (reported): a property name made only of digits is rendered as an array index ("[0]",
    // "messages[0][1]"), so the parameter no longer names the field. pointerToParameter treats the
    // `child` argument (always a property name: missingProperty / additionalProperty) like a pointer
    // segment and brackets it when it matches /^\d+$/.
    it('when the unknown top-level field is named "0", then parameter names the field "0" (not the array index "[0]")', () => {
      rejects({ ...body(), "0": 1 }, "0", "none (unknown field)");
    });

    it('when a message has the unknown field "1", then parameter is messages[0].1 (not messages[0][1])', () => {
      rejects(body({ messages: [message(0, { "1": "x" })] }), "messages[0].1", "none (unknown field)");
    });

    it("when an unknown field has the value undefined, then it is still rejected", () => {
      rejects({ ...body(), extra: undefined }, "extra", "none (unknown field)");
    });
  });

  describe("wrong types", () => {
    const STRING_WRONG: unknown[] = [42, 0, true, null, [], ["x"], {}, { a: 1 }];
    const NUMBER_WRONG: unknown[] = ["1", "", true, null, [], [1], {}, { value: 1 }];
    const OBJECT_WRONG: unknown[] = ["x", "", 1, true, null, [], [{}]];
    const cases = (parameter: string, expectedType: string, wrong: unknown[]) =>
      wrong.map((value) => [parameter, value, expectedType] as const);

    it.each([
      ...cases("messages", MESSAGES_TYPE, ["x", "", 1, true, null, {}, { 0: message(0) }]),
      ...cases("persona", "string", STRING_WRONG),
      ...cases("botName", "string", STRING_WRONG),
      ...cases("samplingParams", "object", OBJECT_WRONG),
    ])("when top-level %s is %j, then it is rejected with its type", (parameter, value, expectedType) => {
      const error = rejects({ ...body(), [parameter]: value }, parameter, expectedType);
      expect(error.message).toBe(`${parameter} must be of type ${expectedType}`);
    });

    it.each([
      ...cases("max_tokens", "integer", NUMBER_WRONG),
      ...cases("temperature", "number", NUMBER_WRONG),
      ...cases("top_p", "number", NUMBER_WRONG),
    ])("when samplingParams.%s is %j, then it is rejected with its type", (field, value, expectedType) => {
      rejects(body({ samplingParams: { [field]: value } }), `samplingParams.${field}`, expectedType);
    });

    it.each(cases("messages[1]", "object", ["x", "", 1, true, null, [], [message(1)]]))(
      "when %s is %j instead of an object, then it is rejected",
      (parameter, value, expectedType) => {
        const input = body({}, 2);
        (input.messages as unknown[])[1] = value;
        rejects(input, parameter, expectedType);
      },
    );

    it.each([
      ...cases("role", "string", STRING_WRONG),
      ...cases("content", "string", STRING_WRONG),
      ...cases("index", "integer", NUMBER_WRONG),
      ...cases("messageIndex", "integer", NUMBER_WRONG),
      ...cases("id", "string", STRING_WRONG),
      ...cases("chatId", "string", STRING_WRONG),
      ...cases("userId", "string", STRING_WRONG),
      ...cases("createdAt", "string (ISO 8601 date-time)", STRING_WRONG),
      ...cases("upvote", "number", NUMBER_WRONG),
      ...cases(
        "image",
        "string or null",
        STRING_WRONG.filter((v) => v !== null),
      ),
    ])(
      "when message field %s is %j, then messages[0].<field> is rejected with its type",
      (field, value, expectedType) => {
        rejects(body({ messages: [message(0, { [field]: value })] }), `messages[0].${field}`, expectedType);
      },
    );
  });

  describe("body that is not an object", () => {
    it.each([
      ["null", null],
      ["undefined", undefined],
      ["an array", []],
      ["an array of messages", [message(0)]],
      ["a string", "messages"],
      ["a JSON string", JSON.stringify({ messages: [message(0)] })],
      ["a number", 0],
      ["a boolean", true],
    ])("when the body is %s, then parameter body is rejected as an object", (_, input) => {
      const error = rejects(input, "body", "object");
      expect(error.message).toBe("body must be of type object");
    });
  });

  describe("result", () => {
    it("when messages arrive out of order, then the validated request lists them by position with defaults filled", () => {
      const input = {
        messages: [
          message(2, { content: "third" }),
          message(0, { content: "first" }),
          message(1, { content: "second" }),
        ],
        samplingParams: { temperature: 1.1 },
      };
      expect(accepts(input)).toEqual({
        messages: [
          { role: "You", content: "first", index: 0 },
          { role: "Bot", content: "second", index: 1 },
          { role: "You", content: "third", index: 2 },
        ],
        botName: DEFAULT_BOT_NAME,
        samplingParams: { ...DEFAULT_SAMPLING, temperature: 1.1 },
      });
    });

    it("when the error is turned into an envelope, then it carries the spec's INVALID_PARAMETER details", () => {
      const now = new Date("2024-05-01T12:00:00.000Z");
      const error = captureApiError(() => accepts({}));
      expect(error.toEnvelope(now)).toEqual({
        error: {
          code: "INVALID_PARAMETER",
          message: "messages is required",
          details: {
            parameter: "messages",
            expected_type: MESSAGES_TYPE,
            problems: [{ parameter: "messages", expected_type: MESSAGES_TYPE, message: "messages is required" }],
          },
        },
        status: "error",
        timestamp: "2024-05-01T12:00:00.000Z",
      });
    });

    it("when validation fails, then the thrown value is an ApiError and an Error", () => {
      const error = captureApiError(() => accepts(null));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe("ApiError");
    });
  });
});
