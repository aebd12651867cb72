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

/** Query strings carry only text: this instance reads `limit=20` as the integer the schema asks for. */
const queryAjv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true, coerceTypes: true });

export type Validator<T> = (input: unknown) => T;

function toValidator<T>(validate: ValidateFunction): Validator<T> {
  return (input: unknown): T => {
    if (validate(input)) return input as T;
    throw toInvalidParameters(validate.errors ?? []);
  };
}

/** Compiles `schema` once and returns a function that fills defaults in place or throws ApiError. */
export function compileValidator<T>(schema: object): Validator<T> {
  return toValidator(ajv.compile(schema));
}

/**
 * As compileValidator, for a parsed query string: values are converted to the schema's types in
 * place (a repeated parameter arrives as an array and is refused, not guessed at).
 */
export function compileQueryValidator<T>(schema: object): Validator<T> {
  return toValidator(queryAjv.compile(schema));
}
