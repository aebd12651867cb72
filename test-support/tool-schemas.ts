import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * The function tools the /v1 tool tests offer the model (chat completions and responses alike), and
 * a validator per tool name: a call's arguments must be valid for its tool's parameters.
 */
export const WEATHER = {
  type: "object",
  properties: {
    city: { type: "string", minLength: 1, maxLength: 12 },
    unit: { enum: ["celsius", "fahrenheit"] },
  },
  required: ["city", "unit"],
  additionalProperties: false,
} as const;

export const SUM = {
  type: "object",
  properties: { a: { type: "integer", minimum: 0, maximum: 99 }, b: { type: "integer", minimum: 0, maximum: 99 } },
  required: ["a", "b"],
  additionalProperties: false,
} as const;

const ajv = new Ajv2020({ strict: false });
export const VALIDATORS: Record<string, ReturnType<typeof ajv.compile>> = {
  get_weather: ajv.compile(WEATHER),
  add: ajv.compile(SUM),
};
