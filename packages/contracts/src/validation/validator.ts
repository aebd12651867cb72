import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { toInvalidParameters } from "./ajv-error.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * One ajv instance for the process; every schema is compiled once, at import time of its module.
 * allErrors: a request is told every problem at once (details.problems). The price, checking a
 * bad body to its end, is bounded by the body size limit.
 */
const ajv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true });
addFormats(ajv);

export type Validator<T> = (input: unknown) => T;

/** Compiles `schema` once and returns a function that fills defaults in place or throws ApiError. */
export function compileValidator<T>(schema: object): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (input: unknown): T => {
    if (validate(input)) return input as T;
    throw toInvalidParameters(validate.errors ?? []);
  };
}
