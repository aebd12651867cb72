import {
  ApiError,
  BATCH_LIMITS,
  FILE_LIMITS,
  mapChatCompletionRequest,
  mapTextCompletionRequest,
  type BatchEndpoint,
  type BatchLineError,
  type ChatLimits,
  type MappedChatRequest,
  type MappedTextCompletion,
} from "@chorus/contracts";

/** A line as kept for feeding: the request's `custom_id` and `body` (validated). */
export interface BatchLine {
  custom_id: string;
  body: Record<string, unknown>;
}

/** The live endpoint's own reading of a body: the same schema and mapping (and their 400s) as a request sent there. */
export function mapBatchBody(
  endpoint: BatchEndpoint,
  body: unknown,
  limits: ChatLimits,
): MappedChatRequest | MappedTextCompletion {
  return endpoint === "/v1/chat/completions"
    ? mapChatCompletionRequest(body, limits)
    : mapTextCompletionRequest(body, limits);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What is wrong with one line (its field and why), or null when it is a request the batch can run. */
function lineProblem(
  text: string,
  endpoint: BatchEndpoint,
  limits: ChatLimits,
  seen: Set<string>,
): { param: string | null; message: string } | { line: BatchLine } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { param: null, message: "not valid JSON" };
  }
  if (!isObject(parsed)) return { param: null, message: "a line must be a JSON object" };
  const { custom_id: customId, method, url, body } = parsed;
  if (typeof customId !== "string" || customId === "")
    return { param: "custom_id", message: "custom_id must be a non-empty string" };
  if (seen.has(customId)) return { param: "custom_id", message: `custom_id '${customId}' is used by an earlier line` };
  seen.add(customId);
  if (method !== "POST") return { param: "method", message: "method must be POST" };
  if (url !== endpoint) return { param: "url", message: `url must be the batch's endpoint, ${endpoint}` };
  if (!isObject(body)) return { param: "body", message: "body must be a JSON object" };
  if (typeof body.model !== "string") return { param: "body.model", message: "body.model must be a string" };
  if (body.stream === true) return { param: "body.stream", message: "a batch line cannot stream" };
  try {
    mapBatchBody(endpoint, body, limits);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const field = error.details?.parameter;
    return { param: typeof field === "string" && field !== "body" ? `body.${field}` : "body", message: error.message };
  }
  return { line: { custom_id: customId, body } };
}

/**
 * Reads a batch's input (JSON Lines; blank lines are skipped, as OpenAI does): every line a request
 * for the batch's endpoint, with a unique `custom_id` and a body the live endpoint would accept. Any
 * bad line: 400 naming the first (line number and field) and listing the first BATCH_LIMITS
 * .maxReportedErrors in `errors`. A model the key may not use is not checked here: such a line fails
 * in the error file when it runs (scopes are the key's when the line runs).
 */
export function readBatchLines(content: string, endpoint: BatchEndpoint, limits: ChatLimits): BatchLine[] {
  const lines: BatchLine[] = [];
  const errors: BatchLineError[] = [];
  const seen = new Set<string>();
  let bad = 0;
  content.split("\n").forEach((text, index) => {
    if (text.trim() === "") return;
    const read = lineProblem(text, endpoint, limits, seen);
    if ("line" in read) return void lines.push(read.line);
    bad++;
    if (errors.length < BATCH_LIMITS.maxReportedErrors) errors.push({ line: index + 1, ...read });
  });
  if (lines.length + bad > FILE_LIMITS.maxLines)
    throw ApiError.invalidParameter("input_file_id", "string", `a batch holds at most ${FILE_LIMITS.maxLines} lines`);
  const [first] = errors;
  if (first) {
    const where = `line ${first.line}${first.param ? `: ${first.param}` : ""}`;
    const more = bad > 1 ? ` (and ${bad - 1} more bad line${bad > 2 ? "s" : ""}: see errors)` : "";
    throw new ApiError("INVALID_PARAMETER", `${where}: ${first.message}${more}`, {
      parameter: where,
      line_errors: errors.map((e) => ({ code: "invalid_request", ...e })),
    });
  }
  if (lines.length === 0)
    throw ApiError.invalidParameter("input_file_id", "string", "the input file holds no requests");
  return lines;
}
