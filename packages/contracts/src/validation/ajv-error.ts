import type { ErrorObject } from "ajv";
import { ApiError } from "../errors.js";

/** `/messages/2/content` -> `messages[2].content`; the empty pointer is the body itself. */
export function pointerToParameter(pointer: string, child?: string): string {
  const segments = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let path = "";
  for (const segment of segments) {
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === "" ? segment : `.${segment}`;
  }
  // `child` is always a field name (a missing or unknown property), even when it is all digits.
  if (child !== undefined) path = path === "" ? child : `${path}.${child}`;
  return path === "" ? "body" : path;
}

interface SchemaLike {
  type?: string | string[];
  format?: string;
  items?: SchemaLike;
  properties?: Record<string, SchemaLike>;
}

function typeName(schema: SchemaLike | undefined): string {
  if (!schema?.type) return "unknown";
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const names = types.map((t) => (t === "array" && schema.items?.type ? `array of ${typeName(schema.items)}` : t));
  const joined = names.join(" or ");
  return schema.format === "date-time" ? `${joined} (ISO 8601 date-time)` : joined;
}

function describe(error: ErrorObject, parameter: string, expected: string): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${parameter} is required`;
    case "type":
      return `${parameter} must be of type ${expected}`;
    case "enum":
      return `${parameter} must be one of: ${(p.allowedValues as unknown[]).join(", ")}`;
    case "additionalProperties":
      return `${parameter} is not a known field`;
    case "minLength":
      return p.limit === 1
        ? `${parameter} must not be empty`
        : `${parameter} must have at least ${String(p.limit)} characters`;
    case "maxLength":
      return `${parameter} must have at most ${String(p.limit)} characters`;
    case "pattern":
      return `${parameter} must not be blank`;
    case "minItems":
      return `${parameter} must have at least ${String(p.limit)} item(s)`;
    case "maxItems":
      return `${parameter} must have at most ${String(p.limit)} items`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `${parameter} must be ${String(p.comparison)} ${String(p.limit)}`;
    case "format":
      return `${parameter} must be a valid ${String(p.format)} string`;
    default:
      return `${parameter} ${error.message ?? "is invalid"}`;
  }
}

/** One schema problem as `details` and `details.problems` describe it. */
export interface ParameterProblem {
  parameter: string;
  expected_type: string;
  message: string;
}

/** Describes one ajv error (needs ajv `verbose: true`). */
export function toProblem(error: ErrorObject): ParameterProblem {
  const p = error.params as Record<string, unknown>;
  const parent = error.parentSchema as SchemaLike | undefined;
  if (error.keyword === "required") {
    const missing = String(p.missingProperty);
    const parameter = pointerToParameter(error.instancePath, missing);
    const expected = typeName(parent?.properties?.[missing]);
    return { parameter, expected_type: expected, message: describe(error, parameter, expected) };
  }
  if (error.keyword === "additionalProperties") {
    const parameter = pointerToParameter(error.instancePath, String(p.additionalProperty));
    return { parameter, expected_type: "none (unknown field)", message: describe(error, parameter, "") };
  }
  const parameter = pointerToParameter(error.instancePath);
  const expected = typeName(parent);
  return { parameter, expected_type: expected, message: describe(error, parameter, expected) };
}

/** Turns ajv's first error into the spec's INVALID_PARAMETER error (needs ajv `verbose: true`). */
export function toInvalidParameter(error: ErrorObject): ApiError {
  const { parameter, expected_type, message } = toProblem(error);
  return ApiError.invalidParameter(parameter, expected_type, message);
}

/**
 * A body can only be this wrong in one answer: a client that sent a thousand bad messages needs
 * the first few to see the pattern, not a reply larger than its request.
 */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * Every problem of a request at once (ajv `allErrors`): the spec's `details.parameter` and
 * `details.expected_type` and the message describe the first, as they always did, and
 * `details.problems` lists them all (the first included; one per parameter, at most
 * MAX_LISTED_PROBLEMS), so a client
 * mends a request in one round trip instead of one per field.
 */
export function toInvalidParameters(errors: readonly ErrorObject[]): ApiError {
  const problems: ParameterProblem[] = [];
  for (const problem of errors.map(toProblem)) {
    if (problems.length === MAX_LISTED_PROBLEMS) break;
    // One line per parameter: an empty string is also a blank one, and saying so twice helps no one.
    if (!problems.some((known) => known.parameter === problem.parameter)) problems.push(problem);
  }
  const first = problems[0] ?? { parameter: "body", expected_type: "object", message: "the request body is invalid" };
  return new ApiError("INVALID_PARAMETER", first.message, {
    parameter: first.parameter,
    expected_type: first.expected_type,
    problems,
  });
}
