import { ApiError } from "../errors.js";
import { REQUEST_LIMITS as L, SAMPLING_BOUNDS as S } from "../limits.js";
import { MODEL_IDS, isCharacterModel, type ModelId } from "../models.js";
import { validateGenerationRequest } from "./validate-generation-request.js";

// Request validation for the character models `Witch`, `Mage`, `Succubus` and `Lightning`:
// `botName` and the full message field set are required; `upvote` defaults to 0.

type Json = Record<string, unknown>;

const CHARACTER_MODELS = ["Witch", "Mage", "Succubus", "Lightning"] as const;
const DATE_TIME = "string (ISO 8601 date-time)";

/** A valid character message at `position`, carrying every required field. */
function message(position: number, overrides: Json = {}): Json {
  return {
    role: position % 2 === 0 ? "You" : "Bot",
    content: `message ${position}`,
    index: position,
    id: `msg-${position}`,
    messageIndex: position,
    chatId: "chat-1",
    userId: "user-1",
    createdAt: `2024-05-01T12:00:0${position % 10}Z`,
    ...overrides,
  };
}

/** A valid character body with `count` messages in order. */
function body(overrides: Json = {}, count = 1): Json {
  return { messages: Array.from({ length: count }, (_, i) => message(i)), botName: "Morgana", ...overrides };
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

function rejects(model: ModelId, input: unknown, parameter: string, expectedType: string): ApiError {
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

const REQUIRED_MESSAGE_FIELDS = [
  ["role", "string"],
  ["content", "string"],
  ["index", "integer"],
  ["id", "string"],
  ["messageIndex", "integer"],
  ["chatId", "string"],
  ["userId", "string"],
  ["createdAt", DATE_TIME],
] as const;

describe("validateGenerationRequest on character models", () => {
  it("when the model list is read, then exactly the four character models are character models", () => {
    expect(MODEL_IDS.filter(isCharacterModel)).toEqual([...CHARACTER_MODELS]);
    expect(isCharacterModel("default")).toBe(false);
  });

  describe.each(CHARACTER_MODELS)("%s", (model) => {
    const accepts = (input: unknown) => validateGenerationRequest(model, input);

    it("when botName and complete messages are sent, then the request is accepted with defaults filled", () => {
      expect(accepts(body())).toEqual({
        messages: [{ ...message(0), upvote: 0 }],
        botName: "Morgana",
        samplingParams: { max_tokens: S.maxTokens.default, temperature: S.temperature.default, top_p: S.topP.default },
      });
    });

    it("when botName is absent, then botName is reported as a required string (no Assistant default)", () => {
      const error = rejects(model, without(body(), "botName"), "botName", "string");
      expect(error.message).toBe("botName is required");
    });

    it("when messages is absent, then messages is reported first", () => {
      rejects(model, {}, "messages", "array of object");
      rejects(model, { botName: "Morgana" }, "messages", "array of object");
    });

    it.each(REQUIRED_MESSAGE_FIELDS)(
      "when a message lacks %s, then messages[i].%s is reported as required",
      (field, expectedType) => {
        const input = body({}, 3);
        (input.messages as Json[])[1] = without(message(1), field);
        const error = rejects(model, input, `messages[1].${field}`, expectedType);
        expect(error.message).toBe(`messages[1].${field} is required`);
      },
    );

    it("when a message has only the default model's fields, then the first missing character field is reported", () => {
      rejects(model, body({ messages: [{ role: "You", content: "hi", index: 0 }] }), "messages[0].id", "string");
    });

    it("when a message has messageIndex but not index, then index is still required", () => {
      rejects(model, body({ messages: [without(message(0), "index")] }), "messages[0].index", "integer");
    });

    it("when persona is sent, then it is kept; when absent, then the request is still accepted", () => {
      expect(accepts(body({ persona: "A mysterious witch of the northern woods." })).persona).toBe(
        "A mysterious witch of the northern woods.",
      );
      expect(accepts(body())).not.toHaveProperty("persona");
    });
  });

  describe("botName", () => {
    it.each(CHARACTER_MODELS)("on %s, when botName is empty, then it is rejected", (model) => {
      const error = rejects(model, body({ botName: "" }), "botName", "string");
      expect(error.message).toBe("botName must not be empty");
    });

    it.each([" ", "\t", "\n  "])("when botName is blank (%j), then it is rejected", (botName) => {
      const error = rejects("Witch", body({ botName }), "botName", "string");
      expect(error.message).toBe("botName must not be blank");
    });

    it("when botName is exactly maxBotNameChars long, then it is accepted", () => {
      const botName = "b".repeat(L.maxBotNameChars);
      expect(validateGenerationRequest("Mage", body({ botName })).botName).toBe(botName);
    });

    it("when botName is one character over maxBotNameChars, then it is rejected", () => {
      rejects("Mage", body({ botName: "b".repeat(L.maxBotNameChars + 1) }), "botName", "string");
    });

    it.each([null, 1, [], {}, true])("when botName is %j, then it is rejected as a string", (botName) => {
      rejects("Succubus", body({ botName }), "botName", "string");
    });
  });

  describe("upvote", () => {
    it("when upvote is absent on every message, then each gets 0", () => {
      const result = validateGenerationRequest("Lightning", body({}, 3));
      expect(result.messages.map((m) => m.upvote)).toEqual([0, 0, 0]);
    });

    it.each([0, 1, 5, -2, 0.5, 1e6])("when upvote is %d, then it is kept", (upvote) => {
      const result = validateGenerationRequest("Witch", body({ messages: [message(0, { upvote })] }));
      expect(result.messages[0]?.upvote).toBe(upvote);
    });

    it("when only some messages carry upvote, then only the others get 0", () => {
      const input = body({ messages: [message(0, { upvote: 4 }), message(1)] });
      expect(validateGenerationRequest("Witch", input).messages.map((m) => m.upvote)).toEqual([4, 0]);
    });

    it.each(["1", "", null, true, [], [1], {}, Number.NaN, Number.POSITIVE_INFINITY])(
      "when upvote is %j, then it is rejected as a number",
      (upvote) => {
        rejects("Witch", body({ messages: [message(0, { upvote })] }), "messages[0].upvote", "number");
      },
    );
  });

  describe("image", () => {
    it.each([
      ["null", null],
      ["a URL", "https://example.com/image.png"],
      ["at maxImageUrlChars", "i".repeat(L.maxImageUrlChars)],
    ])("when image is %s, then it is accepted and kept", (_, image) => {
      expect(validateGenerationRequest("Mage", body({ messages: [message(0, { image })] })).messages[0]?.image).toBe(
        image,
      );
    });

    it("when image is absent, then it stays absent", () => {
      expect(validateGenerationRequest("Mage", body()).messages[0]).not.toHaveProperty("image");
    });

    it.each([1, true, [], ["x"], {}])("when image is %j, then it is rejected as string or null", (image) => {
      rejects("Mage", body({ messages: [message(0, { image })] }), "messages[0].image", "string or null");
    });

    it("when image is one character over maxImageUrlChars, then it is rejected", () => {
      rejects(
        "Mage",
        body({ messages: [message(0, { image: "i".repeat(L.maxImageUrlChars + 1) })] }),
        "messages[0].image",
        "string or null",
      );
    });
  });

  describe("createdAt", () => {
    it.each([
      "2024-05-01T12:00:00Z",
      "2024-05-01T12:00:00z",
      "2024-05-01t12:00:00Z",
      "2024-05-01T12:00:00.123Z",
      "2024-05-01T12:00:00.123456Z",
      "2024-05-01T12:00:00+02:00",
      "2024-05-01T12:00:00-05:30",
      "2024-02-29T00:00:00Z",
      "1999-12-31T23:59:59Z",
    ])("when createdAt is %j, then it is accepted", (createdAt) => {
      expect(
        validateGenerationRequest("Succubus", body({ messages: [message(0, { createdAt })] })).messages[0]?.createdAt,
      ).toBe(createdAt);
    });

    it.each([
      "",
      " ",
      "yesterday",
      "2024-05-01",
      "12:00:00Z",
      "2024-05-01T12:00Z",
      "2024-13-01T12:00:00Z",
      "2024-02-30T12:00:00Z",
      "2023-02-29T12:00:00Z",
      "2024-05-01T25:00:00Z",
      "2024-05-01T12:60:00Z",
      "01/05/2024 12:00",
      "Wed, 01 May 2024 12:00:00 GMT",
      "1714564800000",
    ])("when createdAt is %j, then it is rejected as an ISO 8601 date-time", (createdAt) => {
      const error = rejects(
        "Succubus",
        body({ messages: [message(0, { createdAt })] }),
        "messages[0].createdAt",
        DATE_TIME,
      );
      expect(error.message).toBe("messages[0].createdAt must be a valid date-time string");
    });

    it.each([1714564800000, null, true, [], {}])(
      "when createdAt is %j (not a string), then it is rejected",
      (createdAt) => {
        rejects("Succubus", body({ messages: [message(0, { createdAt })] }), "messages[0].createdAt", DATE_TIME);
      },
    );
  });

  describe("identifiers", () => {
    it.each(["id", "chatId", "userId"])("when %s is exactly maxIdChars long, then it is accepted", (field) => {
      const value = "i".repeat(L.maxIdChars);
      expect(
        validateGenerationRequest("Lightning", body({ messages: [message(0, { [field]: value })] })).messages[0]?.[
          field as "id"
        ],
      ).toBe(value);
    });

    it.each([
      ...["id", "chatId", "userId"].flatMap((field) => [
        [field, "", "must not be empty"],
        [field, "  ", "must not be blank"],
        [field, "i".repeat(L.maxIdChars + 1), `must have at most ${L.maxIdChars} characters`],
      ]),
    ])("when %s is %j, then it is rejected", (field, value, problem) => {
      const error = rejects(
        "Lightning",
        body({ messages: [message(0, { [field]: value })] }),
        `messages[0].${field}`,
        "string",
      );
      expect(error.message).toBe(`messages[0].${field} ${problem}`);
    });

    it.each([
      ...["id", "chatId", "userId", "role", "content"].flatMap((field) =>
        [1, null, [], {}, true].map((v): [string, unknown, string] => [field, v, "string"]),
      ),
      ...["index", "messageIndex"].flatMap((field) =>
        ["0", null, [], {}, true, 0.5, -1].map((v): [string, unknown, string] => [field, v, "integer"]),
      ),
    ])("when %s is %j, then it is rejected with its type", (field, value, expectedType) => {
      rejects("Lightning", body({ messages: [message(0, { [field]: value })] }), `messages[0].${field}`, expectedType);
    });
  });

  describe("positions", () => {
    const contents = (model: ModelId, messages: Json[]) =>
      validateGenerationRequest(model, body({ messages })).messages.map((m) => m.content);

    it.each(CHARACTER_MODELS)("on %s, when messages arrive out of order, then they are sorted by index", (model) => {
      expect(contents(model, [message(2), message(0), message(1)])).toEqual(["message 0", "message 1", "message 2"]);
    });

    it("when index and messageIndex differ, then index decides the order", () => {
      const messages = [message(0, { messageIndex: 1, content: "a" }), message(1, { messageIndex: 0, content: "b" })];
      expect(contents("Witch", messages)).toEqual(["a", "b"]);
    });

    it("when messageIndex counts a longer thread (e.g. 10, 11), then index still decides and the request is accepted", () => {
      const messages = [message(1, { messageIndex: 11 }), message(0, { messageIndex: 10 })];
      expect(contents("Witch", messages)).toEqual(["message 0", "message 1"]);
    });

    it.each([
      ["a duplicate index", [message(0), message(0, { messageIndex: 1 })], "messages[1].index"],
      ["a gap", [message(0), message(2)], "messages[1].index"],
      ["a start at 1", [message(1)], "messages[0].index"],
      [
        "a duplicate index with distinct messageIndex",
        [message(1, { messageIndex: 0 }), message(1)],
        "messages[1].index",
      ],
    ])("when indexes contain %s, then the offending index is rejected", (_, messages, parameter) => {
      rejects("Mage", body({ messages }), parameter, "integer");
    });

    it("when there are exactly maxMessages messages, then they are accepted", () => {
      expect(validateGenerationRequest("Mage", body({}, L.maxMessages)).messages).toHaveLength(L.maxMessages);
    });

    it("when there are maxMessages + 1 messages, then messages is rejected", () => {
      rejects("Mage", body({}, L.maxMessages + 1), "messages", "array of object");
    });

    it("when messages is empty, then it is rejected", () => {
      rejects("Mage", body({ messages: [] }), "messages", "array of object");
    });
  });

  describe("unknown fields and non-object bodies", () => {
    it.each(["model", "character", "bot_name", "characterType"])(
      "when the body has the unknown field %j, then it is named",
      (field) => {
        rejects("Witch", body({ [field]: "x" }), field, "none (unknown field)");
      },
    );

    it.each(["name", "timestamp", "likes", "imageUrl"])(
      "when a message has the unknown field %j, then it is named",
      (field) => {
        rejects(
          "Witch",
          body({ messages: [message(0, { [field]: "x" })] }),
          `messages[0].${field}`,
          "none (unknown field)",
        );
      },
    );

    it.each(["topK", "topP", "Seed"])("when samplingParams has the unknown field %j, then it is named", (field) => {
      rejects("Witch", body({ samplingParams: { [field]: 1 } }), `samplingParams.${field}`, "none (unknown field)");
    });

    it.each([null, undefined, [], "body", 3])(
      "when the body is %j, then parameter body is rejected as an object",
      (input) => {
        rejects("Lightning", input, "body", "object");
      },
    );
  });

  describe("sampling parameters", () => {
    it.each([
      [{ max_tokens: S.maxTokens.max + 1 }, "samplingParams.max_tokens", "integer"],
      [{ temperature: S.temperature.min - 1e-9 }, "samplingParams.temperature", "number"],
      [{ top_p: S.topP.exclusiveMin }, "samplingParams.top_p", "number"],
    ])(
      "when samplingParams is %j, then the same bounds as on default apply",
      (samplingParams, parameter, expectedType) => {
        rejects("Succubus", body({ samplingParams }), parameter, expectedType);
      },
    );

    it("when samplingParams sits exactly on every limit, then it is accepted", () => {
      const samplingParams = { max_tokens: S.maxTokens.max, temperature: S.temperature.max, top_p: S.topP.max };
      expect(
        validateGenerationRequest("Succubus", body({ samplingParams: { ...samplingParams } })).samplingParams,
      ).toEqual(samplingParams);
    });
  });

  describe("result", () => {
    it("when the request is valid, then the result has messages in index order, upvote filled and sampling defaults", () => {
      const input = body({ messages: [message(1, { upvote: 2 }), message(0)], persona: "p" });
      expect(validateGenerationRequest("Lightning", input)).toEqual({
        messages: [
          { ...message(0), upvote: 0 },
          { ...message(1), upvote: 2 },
        ],
        persona: "p",
        botName: "Morgana",
        samplingParams: { max_tokens: S.maxTokens.default, temperature: S.temperature.default, top_p: S.topP.default },
      });
    });

    it("when the same character-shaped body is sent to default, then it is accepted there too (default is a superset)", () => {
      expect(() => validateGenerationRequest("default", body())).not.toThrow();
    });

    it("when a default-shaped body is sent to a character model, then it is rejected", () => {
      rejects("Witch", { messages: [{ role: "You", content: "hi", index: 0 }] }, "botName", "string");
      rejects(
        "Witch",
        { messages: [{ role: "You", content: "hi", index: 0 }], botName: "b" },
        "messages[0].id",
        "string",
      );
    });
  });
});
