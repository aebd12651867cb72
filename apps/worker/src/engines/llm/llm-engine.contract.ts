import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";
import { cleanPartialReply, cleanReply } from "./stop-sequences.js";

/**
 * The behaviour every text engine promises, whatever its model: run it from each engine's test
 * file. Nothing here depends on what a model says, only on how the engine behaves.
 */
export interface LlmEngineContractOptions {
  /** Per-test time limit; real engines on small CPUs need more than jest's 5 s. */
  testTimeoutMs?: number;
  /** How far above maxTokens an engine that can only approximate its token count may report. */
  tokenCountTolerance?: number;
  /** maxTokens for the abort tests: large enough that generation is still running when the abort lands. */
  longMaxTokens?: number;
  /** The conversation to send; it must start with a system turn and invite a long reply. */
  conversation?: ChatTurn[];
  /** The engine tells the reply so far with its progress (a long generation's reports carry `text`). */
  reportsReplySoFar?: boolean;
}

const DEFAULT_CONVERSATION: ChatTurn[] = [
  { role: "system", content: "You are a storyteller who writes long, detailed stories." },
  { role: "user", content: "Once upon a time there was a little cat. Tell me the whole story." },
];

interface Run {
  result: GenerationResult;
  progress: number[];
}

type RunOverrides = Partial<Pick<GenerationInput, "signal" | "onProgress" | "stop">> & {
  maxTokens?: number;
  seed?: number;
  temperature?: number;
};

/**
 * A piece of `text` from its middle on, long enough to occur there first where the text allows, and
 * where it first occurs: a reply asked to stop before it must end exactly there.
 */
function stopSequenceFrom(text: string): { stop: string; at: number } {
  const at = text.indexOf(" ", Math.floor(text.length / 2)) + 1 || Math.floor(text.length / 2);
  let length = 2;
  while (at + length < text.length && text.indexOf(text.slice(at, at + length)) < at) length++;
  const stop = text.slice(at, at + length);
  return { stop, at: text.indexOf(stop) };
}

export function describeLlmEngineContract(
  name: string,
  makeEngine: () => Promise<LlmEngine>,
  options: LlmEngineContractOptions = {},
): void {
  const timeout = options.testTimeoutMs ?? 30_000;
  const tolerance = options.tokenCountTolerance ?? 0;
  const longMaxTokens = options.longMaxTokens ?? 200;
  const turns = options.conversation ?? DEFAULT_CONVERSATION;

  describe(`LlmEngine contract: ${name}`, () => {
    let engine: LlmEngine;
    let closed = false;

    beforeAll(async () => {
      engine = await makeEngine();
    }, timeout);

    afterAll(async () => {
      if (!closed) await engine?.close();
    }, timeout);

    /** Runs one generation, recording every progress report. */
    async function run(overrides: RunOverrides = {}): Promise<Run> {
      const progress: number[] = [];
      const result = await engine.generate({
        turns,
        sampling: {
          maxTokens: overrides.maxTokens ?? 16,
          temperature: overrides.temperature ?? 0.8,
          topP: 0.95,
          seed: overrides.seed ?? 42,
        },
        ...(overrides.stop ? { stop: overrides.stop } : {}),
        signal: overrides.signal ?? new AbortController().signal,
        onProgress: (report) => {
          progress.push(report.tokens);
          overrides.onProgress?.(report);
        },
      });
      return { result, progress };
    }

    /** Starts a long generation and aborts it at its first progress report. */
    function abortedRun(): { outcome: Promise<Run>; reason: Error; progress: number[] } {
      const controller = new AbortController();
      const reason = new Error("aborted by the contract test");
      const progress: number[] = [];
      const onProgress = (report: { tokens: number }): void => {
        progress.push(report.tokens);
        controller.abort(reason);
      };
      const outcome = run({ maxTokens: longMaxTokens, signal: controller.signal, onProgress });
      return { outcome, reason, progress };
    }

    it("has a name", () => {
      expect(typeof engine.name).toBe("string");
      expect(engine.name.length).toBeGreaterThan(0);
    });

    it(
      "when given a conversation with a system turn, then it returns text and a token count within maxTokens",
      async () => {
        const { result } = await run({ maxTokens: 16 });
        expect(result.text.trim().length).toBeGreaterThan(0);
        expect(Number.isInteger(result.tokens)).toBe(true);
        expect(result.tokens).toBeGreaterThan(0);
        expect(result.tokens).toBeLessThanOrEqual(16 + tolerance);
        expect(Number.isInteger(result.promptTokens)).toBe(true);
        expect(result.promptTokens).toBeGreaterThanOrEqual(0);
      },
      timeout,
    );

    it(
      "when tokens stream, then progress counts never decrease and never pass the result's count",
      async () => {
        const { result, progress } = await run({ maxTokens: 16 });
        expect(progress.length).toBeGreaterThan(0);
        progress.forEach((tokens, i) => expect(tokens).toBeGreaterThanOrEqual(progress[i - 1] ?? 0));
        expect(progress.at(-1)).toBeLessThanOrEqual(result.tokens);
      },
      timeout,
    );

    it(
      "when progress carries the reply so far, then, cleaned, it is a prefix of the final reply, cleaned",
      async () => {
        const texts: string[] = [];
        const { result } = await run({
          maxTokens: longMaxTokens,
          onProgress: (report) => void (report.text !== undefined && texts.push(report.text)),
        });
        for (const text of texts) expect(cleanReply(result.text).startsWith(cleanPartialReply(text))).toBe(true);
        if (options.reportsReplySoFar) expect(texts.some((text) => cleanPartialReply(text).length > 0)).toBe(true);
      },
      timeout,
    );

    it(
      "when given stop sequences, then the reply ends just before the first one it would have held",
      async () => {
        // The same seed, near greedy: the second reply is the first one until the stop sequence.
        const sampling = { maxTokens: 32, seed: 7, temperature: 0.1 };
        const { result: whole } = await run(sampling);
        const { stop, at } = stopSequenceFrom(whole.text);
        expect(at).toBeGreaterThan(0);
        const { result: stopped } = await run({ ...sampling, stop: ["never in a reply \u0000", stop] });
        expect(cleanReply(stopped.text)).toBe(cleanReply(whole.text.slice(0, at)));
        expect(stopped.text).not.toContain(stop);
        expect(stopped.finishReason).toBe("stop");
      },
      timeout,
    );

    it.each([1, 2, 3])(
      "when maxTokens is %i, then no more tokens than that are generated, and at least one is counted",
      async (maxTokens) => {
        const { result, progress } = await run({ maxTokens });
        // Counted even when the reply's text is empty (a token held back as the start of a stop sequence).
        expect(result.tokens).toBeGreaterThan(0);
        expect(result.tokens).toBeLessThanOrEqual(maxTokens + tolerance);
        expect(Math.max(0, ...progress)).toBeLessThanOrEqual(maxTokens + tolerance);
      },
      timeout,
    );

    it(
      "when a reply is cut at maxTokens, then its finishReason is length, and stop when it ended before",
      async () => {
        const cut = await run({ maxTokens: 4 });
        expect(cut.result.finishReason).toBe(cut.result.tokens >= 4 ? "length" : "stop");
        const { result: whole } = await run({ maxTokens: longMaxTokens, stop: ["e"] });
        expect(whole.finishReason).toBe("stop");
      },
      timeout,
    );

    it(
      "when the signal is already aborted, then it rejects with the signal's reason without generating",
      async () => {
        const controller = new AbortController();
        const reason = new Error("aborted before the start");
        controller.abort(reason);
        const progress: number[] = [];
        const outcome = run({ signal: controller.signal, onProgress: (report) => progress.push(report.tokens) });
        await expect(outcome).rejects.toBe(reason);
        expect(progress).toEqual([]);
      },
      timeout,
    );

    it(
      "when aborted mid-generation, then it rejects with the signal's reason before reaching maxTokens",
      async () => {
        const { outcome, reason, progress } = abortedRun();
        await expect(outcome).rejects.toBe(reason);
        expect(progress.length).toBeGreaterThan(0);
        expect(progress.at(-1)).toBeLessThan(longMaxTokens);
      },
      timeout,
    );

    it(
      "when generations were aborted, then the engine can still run two at once",
      async () => {
        const aborted = [abortedRun(), abortedRun()];
        for (const { outcome, reason } of aborted) await expect(outcome).rejects.toBe(reason);
        const [first, second] = await Promise.all([run({ maxTokens: 8 }), run({ maxTokens: 8 })]);
        expect(first.result.tokens).toBeGreaterThan(0);
        expect(second.result.tokens).toBeGreaterThan(0);
      },
      timeout,
    );

    it(
      "when two generations run at once, then both complete",
      async () => {
        const [first, second] = await Promise.all([run({ maxTokens: 12 }), run({ maxTokens: 12 })]);
        for (const { result } of [first, second]) {
          expect(result.text.trim().length).toBeGreaterThan(0);
          expect(result.tokens).toBeGreaterThan(0);
          expect(result.tokens).toBeLessThanOrEqual(12 + tolerance);
        }
      },
      timeout,
    );

    it(
      "when generations start one after another with no gap, then every one completes",
      async () => {
        for (let i = 0; i < 8; i++) {
          const { result } = await run({ maxTokens: 4, seed: i });
          expect(result.tokens).toBeGreaterThan(0);
        }
      },
      timeout,
    );

    it(
      "when more generations start at once than the engine runs together, then the rest wait and all complete",
      async () => {
        const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => run({ maxTokens: 6, seed: i })));
        for (const { result } of runs) expect(result.tokens).toBeGreaterThan(0);
      },
      timeout,
    );

    it(
      "when one long generation runs while short ones come and go, then all of them complete",
      async () => {
        const long = run({ maxTokens: longMaxTokens });
        for (let i = 0; i < 6; i++) {
          const { result } = await run({ maxTokens: 3, seed: i });
          expect(result.tokens).toBeGreaterThan(0);
        }
        const { result } = await long;
        expect(result.tokens).toBeGreaterThan(0);
        expect(result.tokens).toBeLessThanOrEqual(longMaxTokens + tolerance);
      },
      timeout,
    );

    it(
      "when a generation completes, then it reports the prompt tokens it took from a cache within its prompt",
      async () => {
        const { result } = await run({ maxTokens: 4 });
        expect(Number.isInteger(result.cachedTokens)).toBe(true);
        expect(result.cachedTokens).toBeGreaterThanOrEqual(0);
        expect(result.cachedTokens).toBeLessThanOrEqual(result.promptTokens);
      },
      timeout,
    );

    it(
      "when closed, then close() resolves",
      async () => {
        closed = true;
        await expect(engine.close()).resolves.toBeUndefined();
      },
      timeout,
    );
  });
}
