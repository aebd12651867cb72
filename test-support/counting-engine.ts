import type { LlmEngine } from "./worker.js";

/**
 * `engine`, counting the generations asked of it: how a test tells that every job ran once (a job
 * that never runs asks none, a retried one asks twice).
 */
export function countingEngine(engine: LlmEngine): { engine: LlmEngine; calls: () => number } {
  let calls = 0;
  const counted = new Proxy(engine, {
    get(target, property) {
      if (property === "generate")
        return (...args: Parameters<LlmEngine["generate"]>) => (calls++, target.generate(...args));
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { engine: counted, calls: () => calls };
}
