import type { ErrorObject } from "ajv";
import { ApiError, ERROR_CODES, type ErrorCode } from "../errors.js";
import { MAX_LISTED_PROBLEMS, pointerToParameter, toInvalidParameter, toInvalidParameters } from "./ajv-error.js";

/** A minimal ajv error object; only the fields toInvalidParameter reads matter. */
function ajvError(fields: Partial<ErrorObject> & Pick<ErrorObject, "keyword">): ErrorObject {
  return { instancePath: "", schemaPath: "#", params: {}, ...fields };
}

function expectInvalidParameter(error: ApiError, parameter: string, expectedType: string, message: string): void {
  expect(error).toBeInstanceOf(ApiError);
  expect({ code: error.code, httpStatus: error.httpStatus, details: error.details, message: error.message }).toEqual({
    code: "INVALID_PARAMETER",
    httpStatus: 400,
    details: {
      parameter,
      expected_type: expectedType,
      problems: [{ parameter, expected_type: expectedType, message }],
    },
    message,
  });
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("pointerToParameter", () => {
  it.each([
    ["", undefined, "body"],
    ["/messages", undefined, "messages"],
    ["/samplingParams/max_tokens", undefined, "samplingParams.max_tokens"],
    ["/messages/2", undefined, "messages[2]"],
    ["/messages/2/content", undefined, "messages[2].content"],
    ["/messages/10/createdAt", undefined, "messages[10].createdAt"],
    ["/a/0/1", undefined, "a[0][1]"],
    ["/a/0/1/b", undefined, "a[0][1].b"],
    ["/a/0/b/3/c", undefined, "a[0].b[3].c"],
    ["/0", undefined, "[0]"],
    ["/0/1", undefined, "[0][1]"],
    ["/0/name", undefined, "[0].name"],
  ])("when the pointer is %j, then the parameter is %j", (pointer, child, expected) => {
    expect(pointerToParameter(pointer, child)).toBe(expected);
  });

  it.each([
    ["", "messages", "messages"],
    ["", "botName", "botName"],
    ["/messages/2", "content", "messages[2].content"],
    ["/samplingParams", "top_k", "samplingParams.top_k"],
    ["/a/0/1", "b", "a[0][1].b"],
  ])("when the pointer is %j with child %j, then the parameter is %j", (pointer, child, expected) => {
    expect(pointerToParameter(pointer, child)).toBe(expected);
  });

  it.each([
    ["/a~1b", "a/b"],
    ["/a~0b", "a~b"],
    ["/~1", "/"],
    ["/~0", "~"],
    ["/a~1b~1c", "a/b/c"],
    ["/a~0~0b", "a~~b"],
    ["/a~01", "a~1"],
    ["/a~10", "a/0"],
    ["/x/a~1b/2/c~0d", "x.a/b[2].c~d"],
  ])("when the pointer %j has escaped segments, then they are unescaped to %j", (pointer, expected) => {
    expect(pointerToParameter(pointer)).toBe(expected);
  });

  it.each([
    ["", "a/b", "a/b"],
    ["", "a~1b", "a~1b"],
    ["/messages/0", "we~ird", "messages[0].we~ird"],
  ])("when the child %2$j is a raw key, then it is used as is (not unescaped)", (pointer, child, expected) => {
    expect(pointerToParameter(pointer, child)).toBe(expected);
  });

  // BUG (reported): `child` is always a property name (ajv's missingProperty / additionalProperty),
  // yet a name made only of digits is bracketed like an array index.
  it('when the child is a property named "0", then it is appended as a field name, not as "[0]"', () => {
    expect(pointerToParameter("", "0")).toBe("0");
  });

  it('when the child "1" is a property of messages[0], then the parameter is messages[0].1, not messages[0][1]', () => {
    expect(pointerToParameter("/messages/0", "1")).toBe("messages[0].1");
  });

  it("when the empty pointer is given, then the body itself is named", () => {
    expect(pointerToParameter("")).toBe("body");
  });
});

describe("toInvalidParameter", () => {
  it("when a required property is missing, then it names the property under the instance path with its schema type", () => {
    const error = toInvalidParameter(
      ajvError({
        keyword: "required",
        instancePath: "/messages/2",
        params: { missingProperty: "createdAt" },
        parentSchema: { type: "object", properties: { createdAt: { type: "string", format: "date-time" } } },
      }),
    );
    expectInvalidParameter(
      error,
      "messages[2].createdAt",
      "string (ISO 8601 date-time)",
      "messages[2].createdAt is required",
    );
  });

  it("when a required top-level array is missing, then its type reads 'array of <items>'", () => {
    const error = toInvalidParameter(
      ajvError({
        keyword: "required",
        params: { missingProperty: "messages" },
        parentSchema: { type: "object", properties: { messages: { type: "array", items: { type: "object" } } } },
      }),
    );
    expectInvalidParameter(error, "messages", "array of object", "messages is required");
  });

  it("when the missing property has no schema, then its type is 'unknown'", () => {
    const error = toInvalidParameter(
      ajvError({
        keyword: "required",
        params: { missingProperty: "x" },
        parentSchema: { type: "object", properties: {} },
      }),
    );
    expectInvalidParameter(error, "x", "unknown", "x is required");
  });

  it("when there is no parent schema at all, then the type is 'unknown'", () => {
    expectInvalidParameter(
      toInvalidParameter(ajvError({ keyword: "type", instancePath: "/a" })),
      "a",
      "unknown",
      "a must be of type unknown",
    );
  });

  it("when an unknown property is present, then it names it with expected type 'none (unknown field)'", () => {
    const error = toInvalidParameter(
      ajvError({
        keyword: "additionalProperties",
        instancePath: "/samplingParams",
        params: { additionalProperty: "top_k" },
      }),
    );
    expectInvalidParameter(
      error,
      "samplingParams.top_k",
      "none (unknown field)",
      "samplingParams.top_k is not a known field",
    );
  });

  it.each([
    [{ type: "string" }, "string"],
    [{ type: "integer" }, "integer"],
    [{ type: ["string", "null"] }, "string or null"],
    [{ type: "array" }, "array"],
    [{ type: "array", items: { type: "object" } }, "array of object"],
    [{ type: "array", items: { type: "array", items: { type: "integer" } } }, "array of array of integer"],
    [{ type: "array", items: {} }, "array"],
    [{ type: "string", format: "date-time" }, "string (ISO 8601 date-time)"],
    [{ type: "string", format: "email" }, "string"],
    [{}, "unknown"],
  ])("when the parent schema is %j, then the expected type reads %j", (parentSchema, expected) => {
    const error = toInvalidParameter(ajvError({ keyword: "type", instancePath: "/x", parentSchema }));
    expect(error.details).toEqual({
      parameter: "x",
      expected_type: expected,
      problems: [{ parameter: "x", expected_type: expected, message: `x must be of type ${expected}` }],
    });
    expect(error.message).toBe(`x must be of type ${expected}`);
  });

  it.each([
    ["enum", { allowedValues: ["You", "Bot"] }, "must be one of: You, Bot"],
    ["minLength", { limit: 1 }, "must not be empty"],
    ["minLength", { limit: 3 }, "must have at least 3 characters"],
    ["maxLength", { limit: 100 }, "must have at most 100 characters"],
    ["pattern", { pattern: "\\S" }, "must not be blank"],
    ["minItems", { limit: 1 }, "must have at least 1 item(s)"],
    ["maxItems", { limit: 200 }, "must have at most 200 items"],
    ["minimum", { comparison: ">=", limit: 1 }, "must be >= 1"],
    ["maximum", { comparison: "<=", limit: 2048 }, "must be <= 2048"],
    ["exclusiveMinimum", { comparison: ">", limit: 0 }, "must be > 0"],
    ["exclusiveMaximum", { comparison: "<", limit: 1 }, "must be < 1"],
    ["format", { format: "date-time" }, "must be a valid date-time string"],
  ])("when the keyword is %s, then the message reads '<parameter> %s'", (keyword, params, text) => {
    const error = toInvalidParameter(
      ajvError({ keyword, instancePath: "/p", params, parentSchema: { type: "string" } }),
    );
    expectInvalidParameter(error, "p", "string", `p ${text}`);
  });

  it("when the keyword is not specially handled, then ajv's own message is used", () => {
    const error = toInvalidParameter(
      ajvError({
        keyword: "multipleOf",
        instancePath: "/n",
        message: "must be multiple of 2",
        parentSchema: { type: "number" },
      }),
    );
    expectInvalidParameter(error, "n", "number", "n must be multiple of 2");
  });

  it("when the keyword is not handled and ajv gave no message, then it reads 'is invalid'", () => {
    const error = toInvalidParameter(
      ajvError({ keyword: "const", instancePath: "/n", parentSchema: { type: "number" } }),
    );
    expectInvalidParameter(error, "n", "number", "n is invalid");
  });

  it("when the error is on the body itself, then the parameter is 'body'", () => {
    const error = toInvalidParameter(ajvError({ keyword: "type", parentSchema: { type: "object" } }));
    expectInvalidParameter(error, "body", "object", "body must be of type object");
  });
});

describe("ApiError", () => {
  it("when built with invalidParameter, then it is a 400 INVALID_PARAMETER Error with parameter and expected_type", () => {
    const error = ApiError.invalidParameter("messages[2].content", "string", "messages[2].content must not be blank");
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.name).toBe("ApiError");
    expect(error.code).toBe("INVALID_PARAMETER");
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe("messages[2].content must not be blank");
    expect(error.details).toEqual({
      parameter: "messages[2].content",
      expected_type: "string",
      problems: [
        { parameter: "messages[2].content", expected_type: "string", message: "messages[2].content must not be blank" },
      ],
    });
  });

  it.each(Object.entries(ERROR_CODES) as [ErrorCode, number][])(
    "when the code is %s, then httpStatus is %d",
    (code, status) => {
      expect(new ApiError(code, "m").httpStatus).toBe(status);
    },
  );

  it("when toEnvelope is given a time and the error has details, then it returns {error:{code,message,details},status,timestamp}", () => {
    const now = new Date("2024-05-01T12:34:56.789Z");
    const envelope = ApiError.invalidParameter("botName", "string", "botName is required").toEnvelope(now);
    expect(envelope).toStrictEqual({
      error: {
        code: "INVALID_PARAMETER",
        message: "botName is required",
        details: {
          parameter: "botName",
          expected_type: "string",
          problems: [{ parameter: "botName", expected_type: "string", message: "botName is required" }],
        },
      },
      status: "error",
      timestamp: "2024-05-01T12:34:56.789Z",
    });
    expect(Object.keys(envelope)).toEqual(["error", "status", "timestamp"]);
    expect(Object.keys(envelope.error)).toEqual(["code", "message", "details"]);
  });

  it("when the error has no details, then the envelope has no details key", () => {
    const envelope = new ApiError("RATE_LIMITED", "slow down").toEnvelope(new Date(0));
    expect(envelope).toStrictEqual({
      error: { code: "RATE_LIMITED", message: "slow down" },
      status: "error",
      timestamp: "1970-01-01T00:00:00.000Z",
    });
    expect(envelope.error).not.toHaveProperty("details");
  });

  it("when toEnvelope is called without a time, then the timestamp is the current time in ISO 8601", () => {
    const before = Date.now();
    const { timestamp } = new ApiError("INTERNAL_ERROR", "boom").toEnvelope();
    const after = Date.now();
    expect(timestamp).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(timestamp)).toBeLessThanOrEqual(after);
  });

  it("when the envelope is serialized as JSON, then it round-trips unchanged", () => {
    const envelope = ApiError.invalidParameter(
      "samplingParams.top_p",
      "number",
      "samplingParams.top_p must be > 0",
    ).toEnvelope(new Date("2024-01-01T00:00:00Z"));
    expect(JSON.parse(JSON.stringify(envelope))).toStrictEqual(envelope);
  });
});

describe("toInvalidParameters", () => {
  const missing = (name: string) =>
    ajvError({
      keyword: "required",
      params: { missingProperty: name },
      parentSchema: { properties: { [name]: { type: "string" } } },
    });

  it("when a body has several problems, then details describe the first and details.problems lists all, in order", () => {
    const error = toInvalidParameters([
      missing("botName"),
      ajvError({
        keyword: "maximum",
        instancePath: "/t",
        params: { comparison: "<=", limit: 2 },
        parentSchema: { type: "number" },
      }),
    ]);
    expect(error.message).toBe("botName is required");
    expect(error.details).toEqual({
      parameter: "botName",
      expected_type: "string",
      problems: [
        { parameter: "botName", expected_type: "string", message: "botName is required" },
        { parameter: "t", expected_type: "number", message: "t must be <= 2" },
      ],
    });
  });

  it("when one parameter fails two ways (empty and blank), then it is listed once, with its first problem", () => {
    const empty = ajvError({
      keyword: "minLength",
      instancePath: "/c",
      params: { limit: 1 },
      parentSchema: { type: "string" },
    });
    const blank = ajvError({
      keyword: "pattern",
      instancePath: "/c",
      params: { pattern: "\\S" },
      parentSchema: { type: "string" },
    });
    expect((toInvalidParameters([empty, blank]).details?.problems as unknown[]).length).toBe(1);
  });

  it("when there are more problems than MAX_LISTED_PROBLEMS, then the list stops there", () => {
    const errors = Array.from({ length: MAX_LISTED_PROBLEMS + 5 }, (_, i) => missing(`f${i}`));
    const problems = toInvalidParameters(errors).details?.problems as { parameter: string }[];
    expect(problems.map((p) => p.parameter)).toEqual(Array.from({ length: MAX_LISTED_PROBLEMS }, (_, i) => `f${i}`));
  });
});
