import { MODEL_IDS } from "@chorus/contracts";
import { checkModelsConfig, modelsConfigFromEnv, ModelsConfigError } from "./load-models-config.js";
import type { EngineSpec, ModelsConfigFile } from "./models-config.js";

const llama = { type: "llama", model: "/models/a.gguf" };
const vllm = {
  type: "openai-compatible",
  baseUrl: "http://vllm:8000/v1",
  model: "llama-3.1-8b",
  apiKeyEnv: "VLLM_KEY",
};

function problemsOf(value: unknown): string {
  try {
    checkModelsConfig(value, "models.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(ModelsConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be rejected");
}

describe("models configuration", () => {
  it("when a file is typed from the schema, then its types follow the schema (checked by tsc)", () => {
    const file: ModelsConfigFile = {
      engines: { local: { type: "llama", model: "/models/a.gguf" } },
      models: { Witch: { sampling: { top_p: 0.5 } } },
    };
    // @ts-expect-error: an engine is llama or openai-compatible, as the schema's oneOf says
    const unknownEngine: EngineSpec = { type: "vllm", model: "m" };
    // @ts-expect-error: a model's sampling defaults take no seed
    const seeded: ModelsConfigFile = { engines: {}, models: { Witch: { sampling: { seed: 7 } } } };
    expect(checkModelsConfig(file, "x").models.Witch.sampling).toEqual({ top_p: 0.5 });
    expect(problemsOf({ engines: { main: unknownEngine } })).toContain("/engines/main");
    expect(problemsOf(seeded)).toContain("/models/Witch/sampling");
  });

  it("when there is one engine, then all five models use it", () => {
    const config = checkModelsConfig({ engines: { local: llama } }, "x");
    expect(MODEL_IDS.map((id) => config.models[id].engine)).toEqual(["local", "local", "local", "local", "local"]);
  });

  it("when models name engines and a default, then each gets its own and the rest the default", () => {
    const config = checkModelsConfig(
      {
        engines: { local: llama, vllm },
        defaultEngine: "local",
        models: { Witch: { engine: "vllm", sampling: { temperature: 0.9 } } },
      },
      "x",
    );
    expect(config.models.Witch).toEqual({ engine: "vllm", sampling: { temperature: 0.9 } });
    expect(config.models.Mage.engine).toBe("local");
  });

  it("when several engines and no default leave a model unmapped, then every such model is named", () => {
    const message = problemsOf({ engines: { local: llama, vllm }, models: { Witch: { engine: "vllm" } } });
    for (const id of ["default", "Mage", "Succubus", "Lightning"])
      expect(message).toContain(`models.${id} has no engine`);
  });

  it("when a model names a missing engine, then the message lists the engines there are", () => {
    expect(problemsOf({ engines: { local: llama }, models: { Mage: { engine: "gpu" } } })).toContain(
      "models.Mage.engine 'gpu' is not in engines (local)",
    );
  });

  it.each([
    [{ engines: {} }, "/engines must NOT have fewer than 1 properties"],
    [{ engines: { local: { type: "llama" } } }, "/engines/local"],
    [{ engines: { local: llama }, models: { witch: { engine: "local" } } }, "must NOT have additional properties"],
    [
      { engines: { local: llama }, models: { Witch: { sampling: { temperature: 5 } } } },
      "/models/Witch/sampling/temperature must be <= 2",
    ],
    [{ engines: { up: { ...vllm, baseUrl: "vllm:8000" } } }, "/engines/up"],
  ])("when the file is %j, then it is rejected naming the problem", (value, expected) => {
    expect(problemsOf(value)).toContain(expected);
  });

  it("when configured from the environment for a remote server, then the key is read from LLM_API_KEY", () => {
    const config = modelsConfigFromEnv({
      LLM_ENGINE: "openai-compatible",
      LLM_MODEL: "gpt-4o-mini",
      LLM_BASE_URL: "https://api.openai.com/v1",
    });
    expect(config.engines.main).toEqual({
      type: "openai-compatible",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4o-mini",
      apiKeyEnv: "LLM_API_KEY",
    });
  });
});
