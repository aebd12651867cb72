/**
 * The JSON Schema keywords llama.cpp turns into a grammar (its json-schema-to-grammar; see
 * docs/api.md, Structured output). Anything else it would skip silently, letting through replies the
 * schema refuses: such a schema is refused instead, naming its part.
 */
const ANNOTATIONS = ["title", "description", "$schema", "$id", "$comment", "default", "examples", "deprecated"];
const SUPPORTED = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);
const FORMATS = new Set(["date", "time", "date-time", "uuid"]);
const BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

export interface UnsupportedPart {
  /** JSON-path-like suffix from the schema's root, e.g. `.properties.age.not`. */
  path: string;
  why: string;
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The first part of `schema` llama.cpp cannot honour, or null. */
export function unsupportedSchemaPart(schema: unknown, path = ""): UnsupportedPart | null {
  if (typeof schema === "boolean") return null;
  if (!isSchema(schema)) return { path, why: "a schema must be an object" };
  return ownKeywordProblem(schema, path) ?? subschemaProblem(schema, path);
}

function ownKeywordProblem(schema: Schema, path: string): UnsupportedPart | null {
  for (const keyword of Object.keys(schema))
    if (!SUPPORTED.has(keyword))
      return {
        path: `${path}.${keyword}`,
        why: `the JSON Schema keyword "${keyword}" is not supported for structured output`,
      };
  const { pattern, format, $ref } = schema;
  if (pattern !== undefined && !(typeof pattern === "string" && pattern.startsWith("^") && pattern.endsWith("$")))
    return { path: `${path}.pattern`, why: "a pattern must be a string anchored with ^ and $" };
  if (format !== undefined && !(typeof format === "string" && FORMATS.has(format)))
    return { path: `${path}.format`, why: `format must be one of ${[...FORMATS].join(", ")}` };
  if ($ref !== undefined && !(typeof $ref === "string" && /^#\/(\$defs|definitions)\/[^/]+$/.test($ref)))
    return { path: `${path}.$ref`, why: "$ref must point into this schema's $defs or definitions (#/$defs/name)" };
  const bound = BOUNDS.find((keyword) => schema[keyword] !== undefined);
  if (bound && schema.type !== "integer")
    return { path: `${path}.${bound}`, why: `${bound} is supported only with "type": "integer"` };
  if (schema.properties !== undefined && (schema.anyOf ?? schema.oneOf) !== undefined)
    return { path: `${path}.properties`, why: "properties cannot be mixed with anyOf/oneOf in the same schema" };
  return null;
}

function subschemaProblem(schema: Schema, path: string): UnsupportedPart | null {
  for (const map of ["properties", "$defs", "definitions"] as const) {
    const entries = schema[map];
    if (entries === undefined) continue;
    if (!isSchema(entries)) return { path: `${path}.${map}`, why: `${map} must be an object` };
    for (const [name, sub] of Object.entries(entries)) {
      const problem = unsupportedSchemaPart(sub, `${path}.${map}.${name}`);
      if (problem) return problem;
    }
  }
  for (const list of ["anyOf", "oneOf", "allOf"] as const) {
    const entries = schema[list];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) return { path: `${path}.${list}`, why: `${list} must be an array` };
    for (const [at, sub] of entries.entries()) {
      const problem = unsupportedSchemaPart(sub, `${path}.${list}[${at}]`);
      if (problem) return problem;
    }
  }
  for (const single of ["items", "additionalProperties"] as const) {
    if (schema[single] === undefined) continue;
    const problem = unsupportedSchemaPart(schema[single], `${path}.${single}`);
    if (problem) return problem;
  }
  return null;
}
