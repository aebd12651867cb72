import { fileURLToPath } from "node:url";
import { loadCharacterCatalog } from "../src/characters/character-catalog.js";
import { modelsConfigFromEnv } from "../src/models/load-models-config.js";
import { createModelRegistry } from "../src/models/model-registry.js";
import { testLogger } from "../../../test-support/logger.js";

describe("createModelRegistry", () => {
  it("when LLM_MODEL is a file that is not a GGUF model, then the error names the file and LLM_MODEL", async () => {
    const notAModel = fileURLToPath(new URL("../../../README.md", import.meta.url));
    const config = modelsConfigFromEnv({ LLM_ENGINE: "llama", LLM_MODEL: notAModel });
    const runtime = {
      threads: 1,
      sequences: 1,
      contextSize: 256,
      gpu: false as const,
      llamaRuntime: "auto" as const,
      llamaServerBinary: null,
      modelsDir: "/tmp",
      promptCacheMiB: 0,
      env: {},
      logger: testLogger("worker"),
    };
    const registry = createModelRegistry(config, await loadCharacterCatalog(), runtime);
    await expect(registry).rejects.toThrow(
      `could not load ${notAModel} as a GGUF model (LLM_MODEL, or the model of engine "main" when MODELS_CONFIG is set): `,
    );
  });
});
