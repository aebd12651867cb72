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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });

/**
 * Reads the variables `schema` names from `env` (only those: the rest of the environment is
 * ignored), coerces types, fills defaults, and reports every bad key at once.
 */
export function loadConfig<T>(schema: EnvSchema, env: NodeJS.ProcessEnv): T {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema)) {
    const raw = env[name];
    if (raw !== undefined && raw !== "") values[name] = raw;
  }
  const validate = ajv.compile({ type: "object", properties: schema });
  if (validate(values)) return values as T;
  const problems = (validate.errors ?? []).map((e) => {
    const name = e.instancePath.slice(1);
    return `${name}=${JSON.stringify(values[name])}: ${e.message ?? "invalid"} (${schema[name]?.description ?? ""})`;
  });
  throw new ConfigError(problems);
}
