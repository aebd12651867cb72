import { ApiError, BATCH_LIMITS, DEFAULT_CHAT_LIMITS } from "@chorus/contracts";
import { readBatchLines } from "./read-batch-lines.js";

const line = (i: number, fields: object = {}, body: object = {}) =>
  JSON.stringify({
    custom_id: `r${i}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "default", messages: [{ role: "user", content: "hi" }], ...body },
    ...fields,
  });

function refusal(content: string, endpoint: "/v1/chat/completions" | "/v1/completions" = "/v1/chat/completions") {
  try {
    readBatchLines(content, endpoint, DEFAULT_CHAT_LIMITS);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("readBatchLines", () => {
  it("when every line is a request for the endpoint, then it keeps custom_id and body, skipping blank lines", () => {
    const lines = readBatchLines(`${line(0)}\n\n${line(1)}\n`, "/v1/chat/completions", DEFAULT_CHAT_LIMITS);
    expect(lines.map((l) => l.custom_id)).toEqual(["r0", "r1"]);
    expect(lines[0]?.body).toMatchObject({ model: "default" });
  });

  it("when a model is outside a key's scopes or unknown, then it is not refused here (the line fails when it runs)", () => {
    expect(readBatchLines(line(0, {}, { model: "Witch" }), "/v1/chat/completions", DEFAULT_CHAT_LIMITS)).toHaveLength(
      1,
    );
    expect(readBatchLines(line(0, {}, { model: "nope" }), "/v1/chat/completions", DEFAULT_CHAT_LIMITS)).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{", null],
    ["an array", "[]", null],
    ["no custom_id", line(0, { custom_id: "" }), "custom_id"],
    ["a method other than POST", line(0, { method: "GET" }), "method"],
    ["another endpoint's url", line(0, { url: "/v1/completions" }), "url"],
    ["no body", line(0, { body: null }), "body"],
    [
      "a body without model",
      JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: {} }),
      "body.model",
    ],
    ["stream", line(0, {}, { stream: true }), "body.stream"],
    ["a body the endpoint refuses", line(0, {}, { temperature: 9 }), "body.temperature"],
  ])("when a line has %s, then the 400 names line 1 and its field", (_, text, param) => {
    const error = refusal(text);
    expect(error.code).toBe("INVALID_PARAMETER");
    expect(error.details?.parameter).toBe(param ? `line 1: ${param}` : "line 1");
    expect(error.message).toMatch(/^line 1/);
  });

  it("when several lines are bad, then the first is named and all are listed (a repeated custom_id too), bounded", () => {
    const error = refusal([line(0), line(1, { method: "PUT" }), line(0), "x"].join("\n"));
    expect(error.message).toMatch(/^line 2: method: .*\(and 2 more bad lines: see errors\)$/);
    expect(error.details?.line_errors).toEqual([
      expect.objectContaining({ line: 2, param: "method" }),
      expect.objectContaining({ line: 3, param: "custom_id" }),
      expect.objectContaining({ line: 4, param: null }),
    ]);
    const many = refusal(Array.from({ length: 150 }, () => "x").join("\n"));
    expect(many.details?.line_errors).toHaveLength(BATCH_LIMITS.maxReportedErrors);
  });

  it("when the file has no request, then it is refused naming input_file_id", () => {
    expect(refusal("\n\n").details?.parameter).toBe("input_file_id");
  });
});
