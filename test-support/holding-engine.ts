import type { LlmEngine } from "./worker.js";

/**
 * The fixture engine, whose finished generations can be held back: with `hold` on, a generation
 * whose text has streamed into the record waits, still `processing`, until it is cancelled, as a
 * long one would. The playground's Stop test otherwise raced the model's own end of text: a story
 * that ended soon after the first characters (temperature 1.5, a random seed) was complete before
 * the click landed, on a loaded machine; its Batches test holds a batch in progress for Cancel alike.
 */
export function holdingEngine(engine: LlmEngine): { engine: LlmEngine; hold(on: boolean): void } {
  let holding = false;
  const untilCancelled = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason as Error);
      signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
    });
  return {
    engine: {
      name: engine.name,
      contextTokens: engine.contextTokens,
      countPromptTokens: (turns) => engine.countPromptTokens(turns),
      generate: async (input) => {
        const result = await engine.generate(input);
        return holding ? untilCancelled(input.signal) : result;
      },
      close: () => engine.close(),
    },
    hold: (on) => {
      holding = on;
    },
  };
}
