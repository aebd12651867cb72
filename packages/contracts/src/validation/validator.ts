import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { ApiError } from "../errors.js";
import { toInvalidParameter } from "./ajv-error.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** One ajv instance for the process; every schema is compiled once, at import time of its module. */
const ajv = new Ajv({ allErrors: false, useDefaults: true, verbose: true, strict: true });
addFormats(ajv);

export type Validator<T> = (input: unknown) => T;

/** Compiles `schema` once and returns a function that fills defaults in place or throws ApiError. */
export function compileValidator<T>(schema: object): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (input: unknown): T => {
    if (validate(input)) return input as T;
    const first = validate.errors?.[0];
    if (!first) throw ApiError.invalidParameter("body", "object", "the request body is invalid");
    throw toInvalidParameter(first);
  };
}
