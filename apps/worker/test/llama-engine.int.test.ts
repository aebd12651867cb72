import { describeLlmEngineContract } from "../src/engines/llm/llm-engine.contract.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { loadFixtureEngine } from "../../../test-support/worker.js";

// The same contract the OpenAI-compatible engine passes, here on a real GGUF through llama.cpp.
describeWithModel("llama.cpp engine on the shared fixture model", () => {
  describeLlmEngineContract("llama.cpp (stories260K-chatml)", () => loadFixtureEngine(2), {
    testTimeoutMs: 60_000,
    longMaxTokens: 400,
    tokenCountTolerance: 0,
  });
});
