import { ApiError } from "../errors.js";
import { BATCH_STATUS_MAX_IDS, validateBatchStatusQuery } from "./batch-status-query.schema.js";
import { validateRequestsListQuery } from "./requests-list-query.schema.js";

function parameterOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("INVALID_PARAMETER");
    return (error as ApiError).details?.parameter;
  }
  throw new Error("no error was thrown");
}

describe("validateRequestsListQuery", () => {
  it("when nothing is sent, then limit is 20 and nothing else is set", () => {
    expect(validateRequestsListQuery({})).toEqual({ limit: 20 });
  });

  it("when the query has text values, then limit becomes an integer and status and cursor stay", () => {
    expect(validateRequestsListQuery({ limit: "100", status: "error", cursor: "abc" })).toEqual({
      limit: 100,
      status: "error",
      cursor: "abc",
    });
  });

  it.each([
    [{ limit: "0" }, "limit"],
    [{ limit: "101" }, "limit"],
    [{ limit: "1.5" }, "limit"],
    [{ limit: ["1", "2"] }, "limit"],
    [{ status: "queued" }, "status"],
    [{ cursor: "" }, "cursor"],
    [{ cursor: "x".repeat(201) }, "cursor"],
    [{ page: "2" }, "page"],
  ])("when the query is %j, then it is 400 naming %s", (query, parameter) => {
    expect(parameterOf(() => validateRequestsListQuery(query))).toBe(parameter);
  });
});

describe("validateBatchStatusQuery", () => {
  it("when ids repeat, then each is kept once, in the order first asked", () => {
    expect(validateBatchStatusQuery({ ids: "b,a,b,c,a" })).toEqual(["b", "a", "c"]);
  });

  it(`when ${BATCH_STATUS_MAX_IDS} distinct ids are asked, with repeats, then they are accepted`, () => {
    const ids = Array.from({ length: BATCH_STATUS_MAX_IDS }, (_, i) => `id-${i}`);
    expect(validateBatchStatusQuery({ ids: [...ids, ...ids].join(",") })).toEqual(ids);
  });

  it.each([
    [{}, "ids"],
    [{ ids: "" }, "ids"],
    [{ ids: "a,,b" }, "ids"],
    [{ ids: ",a" }, "ids"],
    [{ ids: "a b" }, "ids"],
    [{ ids: ["a", "b"] }, "ids"],
    [{ ids: Array.from({ length: BATCH_STATUS_MAX_IDS + 1 }, (_, i) => `id-${i}`).join(",") }, "ids"],
    [{ ids: "a", status: "error" }, "status"],
  ])("when the query is %j, then it is 400 naming %s", (query, parameter) => {
    expect(parameterOf(() => validateBatchStatusQuery(query))).toBe(parameter);
  });
});
