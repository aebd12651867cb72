import { Ajv } from "ajv";

export interface EnvProperty {
  type: "string" | "integer" | "number" | "boolean";
  default?: string | number | boolean;
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  description: string;
}

export type EnvSchema = Record<string, EnvProperty>;

/** The value one variable holds once loaded: its enum's members, else the type its schema names. */
type EnvValue<P extends EnvProperty> = P extends { enum: readonly (infer Member)[] }
  ? Member
  : P["type"] extends "string"
    ? string
    : P["type"] extends "boolean"
      ? boolean
      : number;

type WithDefault<S extends EnvSchema> = { [K in keyof S]: S[K] extends { default: unknown } ? K : never }[keyof S];

/**
 * The configuration a schema (declared `as const`) describes, so the two cannot drift: a variable
 * with a default is always set, one without may be missing.
 */
export type ConfigOf<S extends EnvSchema> = { [K in WithDefault<S>]: EnvValue<S[K]> } & {
  [K in Exclude<keyof S, WithDefault<S>>]?: EnvValue<S[K]>;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });

/**
 * Reads the variables `schema` names from `env` (only those: the rest of the environment is
 * ignored), coerces types, fills defaults, and reports every bad key at once, by name and rule.
 */
export function loadConfig<S extends EnvSchema>(schema: S, env: NodeJS.ProcessEnv): ConfigOf<S> {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema)) {
    const raw = env[name];
    if (raw !== undefined && raw !== "") values[name] = raw;
  }
  const validate = ajv.compile({ type: "object", properties: schema });
  if (validate(values)) return values as ConfigOf<S>;
  // The variable and the rule, never the value: tokens, secrets and passwords live in these
  // variables, and start-up errors end up in logs that more people read than the secrets' owners.
  const problems = (validate.errors ?? []).map((e) => {
    const name = e.instancePath.slice(1);
    const allowed = e.keyword === "enum" ? `must be one of ${schema[name]?.enum?.join(", ")}` : e.message;
    return `${name}: ${allowed ?? "invalid"} (${schema[name]?.description ?? ""})`;
  });
  throw new ConfigError(problems);
}
