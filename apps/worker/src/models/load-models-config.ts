import { readFile } from "node:fs/promises";
import { MODEL_IDS, type ModelId } from "@chorus/contracts";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";
import type { WorkerConfig } from "../config.js";
import {
  MODELS_CONFIG_SCHEMA,
  type EngineSpec,
  type ModelSettings,
  type ModelsConfig,
  type ModelsConfigFile,
} from "./models-config.js";

export class ModelsConfigError extends Error {}

const validate = new Ajv({ allErrors: true, strict: false }).compile(MODELS_CONFIG_SCHEMA);

/** Every model id gets an engine: its own, else `defaultEngine`, else the only engine there is. */
function resolveEngines(raw: ModelsConfigFile, source: string): ModelsConfig {
  const names = Object.keys(raw.engines);
  const fallback = raw.defaultEngine ?? (names.length === 1 ? names[0] : undefined);
  const problems: string[] = [];
  if (raw.defaultEngine && !raw.engines[raw.defaultEngine])
    problems.push(`defaultEngine '${raw.defaultEngine}' is not in engines`);
  const models = {} as Record<ModelId, ModelSettings>;
  for (const id of MODEL_IDS) {
    const settings = raw.models?.[id] ?? {};
    const engine = settings.engine ?? fallback;
    if (!engine) problems.push(`models.${id} has no engine and there is no defaultEngine`);
    else if (!raw.engines[engine])
      problems.push(`models.${id}.engine '${engine}' is not in engines (${names.join(", ")})`);
    models[id] = { ...settings, engine: engine ?? "" };
  }
  if (problems.length > 0) throw new ModelsConfigError(`${source}:\n  ${problems.join("\n  ")}`);
  return { engines: raw.engines, models };
}

/** Validates a parsed models configuration, naming every problem at once. */
export function checkModelsConfig(value: unknown, source: string): ModelsConfig {
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map(
      (e) => `${e.instancePath || "(top level)"} ${e.message ?? "is invalid"}`,
    );
    throw new ModelsConfigError(
      `${source} is not a valid models configuration:\n  ${[...new Set(problems)].join("\n  ")}`,
    );
  }
  return resolveEngines(value, source);
}

/** Reads MODELS_CONFIG (YAML or JSON: YAML is a superset) and validates it. */
export async function loadModelsConfigFile(path: string): Promise<ModelsConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ModelsConfigError(
      `cannot read MODELS_CONFIG ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return checkModelsConfig(parseYaml(text), path);
  } catch (error) {
    if (error instanceof ModelsConfigError) throw error;
    throw new ModelsConfigError(
      `${path} is not valid YAML/JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The settings that describe the one engine when there is no MODELS_CONFIG. */
export type SimpleEngineEnv = Pick<WorkerConfig, "LLM_ENGINE" | "LLM_MODEL" | "LLM_BASE_URL" | "LLM_CONTEXT_TOKENS">;

/** The simple case without a file: one engine from the environment serves all five models. */
export function modelsConfigFromEnv(env: SimpleEngineEnv): ModelsConfig {
  const engine: EngineSpec =
    env.LLM_ENGINE === "llama"
      ? { type: "llama", model: env.LLM_MODEL }
      : {
          type: "openai-compatible",
          baseUrl: env.LLM_BASE_URL ?? "",
          model: env.LLM_MODEL,
          apiKeyEnv: "LLM_API_KEY",
          ...(env.LLM_CONTEXT_TOKENS ? { contextTokens: env.LLM_CONTEXT_TOKENS } : {}),
        };
  return checkModelsConfig({ engines: { main: engine } }, "environment (LLM_ENGINE, LLM_MODEL, LLM_BASE_URL)");
}
