import { describeLlmEngineContract } from "../src/engines/llm/llm-engine.contract.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { describeEachLlamaRuntime, loadFixtureEngine } from "../../../test-support/worker.js";

// The same contract the OpenAI-compatible engine passes, here on a real GGUF through llama.cpp:
// as llama-server run by the worker (the default) and in process through node-llama-cpp.
describeWithModel("llama.cpp engine on the shared fixture model", () => {
  describeEachLlamaRuntime("llama.cpp", (runtime) => {
    describeLlmEngineContract(`llama.cpp ${runtime} (stories260K-chatml)`, () => loadFixtureEngine(2, 1024, runtime), {
      testTimeoutMs: 60_000,
      longMaxTokens: 400,
      tokenCountTolerance: 0,
      reportsReplySoFar: true,
    });
  });
});
