import type {
  MediaTypeObject,
  OperationObject,
  PathsObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";
import { rateLimitHeaders } from "./responses.js";

export type Operation = OperationObject;
export type Paths = PathsObject;
type Content = Record<string, MediaTypeObject>;
type Headers = NonNullable<ResponseObject["headers"]>;

/** A JSON body with its schema and named examples. */
export function json(schema: SchemaObject | ReferenceObject, examples: Record<string, unknown> = {}): Content {
  const named = Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }]));
  return { "application/json": Object.keys(named).length > 0 ? { schema, examples: named } : { schema } };
}

/** A 200 answer of a rate-limited operation: it carries the budget's headers, plus `headers`. */
export function limitedOk(description: string, content: Content, headers: Headers = {}): ResponseObject {
  return { description, headers: { ...rateLimitHeaders(), ...headers }, content };
}
