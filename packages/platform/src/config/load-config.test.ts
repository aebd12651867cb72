import { describe, expect, it } from "@jest/globals";
import { ConfigError, type EnvSchema, loadConfig } from "./load-config.js";

const SCHEMA = {
  PORT: { type: "integer", default: 3000, minimum: 1, maximum: 65535, description: "HTTP port" },
  HOST: { type: "string", default: "127.0.0.1", description: "address to bind" },
  LOG_FORMAT: { type: "string", default: "json", enum: ["json", "pretty"], description: "log format" },
  RATIO: { type: "number", default: 0.5, minimum: 0, maximum: 1, description: "a fraction" },
  TRUST_PROXY: { type: "boolean", default: false, description: "behind a proxy" },
  PREFIX: { type: "string", pattern: "^[a-z]+$", description: "key prefix" },
} as const satisfies EnvSchema;

const DEFAULTS = { PORT: 3000, HOST: "127.0.0.1", LOG_FORMAT: "json", RATIO: 0.5, TRUST_PROXY: false };

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(SCHEMA, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("when nothing is set, then every default is filled and keys without one stay absent", () => {
    expect(loadConfig(SCHEMA, {})).toEqual(DEFAULTS);
  });

  it("when values are set as strings, then they are coerced to the schema's types", () => {
    const config = loadConfig(SCHEMA, {
      PORT: "8080",
      RATIO: "0.25",
      TRUST_PROXY: "true",
      HOST: "0.0.0.0",
      PREFIX: "abc",
    });
    expect(config).toEqual({
      PORT: 8080,
      HOST: "0.0.0.0",
      LOG_FORMAT: "json",
      RATIO: 0.25,
      TRUST_PROXY: true,
      PREFIX: "abc",
    });
    expect(typeof config.PORT).toBe("number");
  });

  it("when a variable is an empty string, then it is treated as unset", () => {
    expect(loadConfig(SCHEMA, { PORT: "", HOST: "", LOG_FORMAT: "", TRUST_PROXY: "", PREFIX: "" })).toEqual(DEFAULTS);
  });

  it("when the environment holds variables the schema does not name, then they are ignored", () => {
    const config = loadConfig(SCHEMA, { PATH: "/usr/bin", HOME: "/root", port: "1", PORT: "4000" });
    expect(config).toEqual({ ...DEFAULTS, PORT: 4000 });
  });

  it("when an integer setting holds a fraction or text, then it is rejected", () => {
    expect(configError({ PORT: "3.5" }).problems).toHaveLength(1);
    expect(configError({ PORT: "eighty" }).problems).toHaveLength(1);
  });

  it("when several keys are bad, then one ConfigError reports every one of them", () => {
    const error = configError({ PORT: "0", LOG_FORMAT: "xml", RATIO: "lots", PREFIX: "UPPER", HOST: "fine" });
    expect(error.name).toBe("ConfigError");
    const named = error.problems.map((problem) => problem.slice(0, problem.indexOf(":")));
    expect([...new Set(named)].sort()).toEqual(["LOG_FORMAT", "PORT", "PREFIX", "RATIO"]);
    for (const problem of error.problems) expect(error.message).toContain(problem);
    expect(error.message.startsWith("Invalid configuration:")).toBe(true);
  });

  it("when a key is bad, then its line names the key, the rule and the key's description, and not the value given", () => {
    const [problem] = configError({ PORT: "70000" }).problems;
    expect(problem).toBe("PORT: must be <= 65535 (HTTP port)");
    const [enumProblem] = configError({ LOG_FORMAT: "xml" }).problems;
    expect(enumProblem).toBe("LOG_FORMAT: must be one of json, pretty (log format)");
    const [patternProblem] = configError({ PREFIX: "Secret-Looking-Value" }).problems;
    expect(patternProblem).toBe('PREFIX: must match pattern "^[a-z]+$" (key prefix)');
  });

  it("when any key is bad, then no value given appears anywhere in the error", () => {
    const values = {
      PORT: "secret-port-value",
      LOG_FORMAT: "secret-format-value",
      RATIO: "secret-ratio-value",
      PREFIX: "Secret-Prefix-Value",
      TRUST_PROXY: "secret-bool-value",
    };
    const error = configError(values);
    expect(error.problems).toHaveLength(Object.keys(values).length);
    for (const value of Object.values(values)) expect(error.message).not.toContain(value);
  });

  it("when the schema is declared as const, then the loaded configuration's type follows it (checked by tsc)", () => {
    const config = loadConfig(SCHEMA, { PREFIX: "abc" });
    const typed: {
      PORT: number;
      HOST: string;
      LOG_FORMAT: "json" | "pretty";
      RATIO: number;
      TRUST_PROXY: boolean;
      PREFIX?: string;
    } = config;
    // @ts-expect-error: a variable without a default may be missing
    const prefix: string = config.PREFIX;
    // @ts-expect-error: an enum's value is any of its members
    const format: "pretty" = config.LOG_FORMAT;
    expect([typed.LOG_FORMAT, prefix, format]).toEqual(["json", "abc", "json"]);
  });

  it("when loadConfig runs, then the environment object passed in is not changed", () => {
    const env = { PORT: "8080", OTHER: "x" };
    loadConfig(SCHEMA, env);
    expect(env).toEqual({ PORT: "8080", OTHER: "x" });
  });
});
