import {
  getLlama,
  LlamaChat,
  LlamaLogLevel,
  type ChatHistoryItem,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
} from "node-llama-cpp";
import { toHistory } from "./chat-prompt.js";
import { stopSequencesFor } from "./stop-sequences.js";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";
import { SlotPool, sharedPrefixLength, type CacheScope, type CacheSlot } from "./slot-pool.js";

export interface LlamaEngineOptions {
  modelPath: string;
  /** CPU threads for llama.cpp; must not exceed the cores available (see docs/engines.md). */
  threads: number;
  /** Concurrent generations: one long-lived context sequence (slot) each. */
  sequences: number;
  /** Upper bound on tokens of context per sequence (clamped to what the model was trained on). */
  contextSize: number;
  gpu: "auto" | false;
}

/** One context sequence with its chat driver, kept for the life of the engine. */
class LlamaSlot implements CacheSlot {
  owner: string | null = null;
  constructor(
    readonly sequence: LlamaContextSequence,
    readonly chat: LlamaChat,
  ) {}

  cachedTokens(): readonly number[] {
    return this.sequence.contextTokens;
  }
}

/**
 * llama.cpp in-process. One model and one context whose N sequences are N slots, created at
 * start-up and never disposed while the engine lives: a job borrows a slot and gives it back, so it
 * never waits on node-llama-cpp reclaiming a sequence id. A slot keeps the tokens it evaluated, and
 * a job takes the free slot that already holds the longest prefix of its prompt; llama.cpp then
 * reads only the rest. The chat template comes from the GGUF itself.
 */
export class LlamaLlmEngine implements LlmEngine {
  readonly name = "llama.cpp";
  readonly contextTokens: number;
  private readonly pool: SlotPool<LlamaSlot>;

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    /** How the llama.cpp binary in use was obtained: a build for this machine, or the prebuilt one. */
    readonly binary: "localBuild" | "prebuilt",
  ) {
    this.contextTokens = context.contextSize;
    const slots = Array.from({ length: context.totalSequences }, () => {
      const sequence = context.getSequence();
      return new LlamaSlot(sequence, new LlamaChat({ contextSequence: sequence }));
    });
    this.pool = new SlotPool(slots);
  }

  static async load(options: LlamaEngineOptions): Promise<LlamaLlmEngine> {
    const llama = await getLlama({
      gpu: options.gpu,
      maxThreads: options.threads,
      logLevel: LlamaLogLevel.error,
      build: "never",
    });
    const model = await llama.loadModel({ modelPath: options.modelPath });
    const contextSize = Math.min(options.contextSize, model.trainContextSize);
    const context = await model.createContext({ sequences: options.sequences, contextSize, threads: options.threads });
    return new LlamaLlmEngine(model, context, llama.buildType);
  }

  countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return Promise.resolve(this.promptTokens(toHistory(turns)).length);
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    const history = toHistory(input.turns);
    const prompt = this.promptTokens(history);
    const scope = this.scopeOf(input, prompt);
    const { slot, sharedPrefix, mustCut } = await this.pool.acquire(prompt, input.signal, scope);
    // Another key's tokens beyond the operator's prefix: gone before this prompt is read.
    if (mustCut) await this.cut(slot, sharedPrefix);
    const before = slot.sequence.tokenMeter.getState();
    let streamed = 0;
    let text = "";
    let healthy = false;
    try {
      const result = await slot.chat.generateResponse(history, {
        maxTokens: input.sampling.maxTokens,
        temperature: input.sampling.temperature,
        topP: input.sampling.topP,
        seed: input.sampling.seed,
        signal: input.signal,
        customStopTriggers: stopSequencesFor(input.stop),
        // Text comes in its own callback (LlamaChat holds back what may begin a stop trigger); each
        // token's report carries the text released so far.
        onTextChunk: (chunk) => {
          text += chunk;
        },
        onToken: (chunk) => {
          streamed += chunk.length;
          input.onProgress({ tokens: streamed, text });
        },
      });
      healthy = true;
      const after = slot.sequence.tokenMeter.getState();
      // The sequence's meter counts what llama.cpp did: every sampled token is an "output" (also the
      // end-of-turn token, and one held back as the start of a stop sequence), every prompt token it
      // had to read an "input" (the prompt's last token is read as the first output, for the logits
      // the reply starts from).
      const tokens = Math.max(after.usedOutputTokens - before.usedOutputTokens, streamed);
      const read = after.usedInputTokens - before.usedInputTokens;
      // A prompt that did not fit beside the reply (a newest message over budget on its own) was
      // shortened or shifted by LlamaChat, so the meter no longer says what came from the cache.
      const fitted = prompt.length + input.sampling.maxTokens < this.contextTokens;
      const cachedTokens = fitted ? Math.max(prompt.length - 1 - read, 0) : 0;
      const finishReason = result.metadata.stopReason === "maxTokens" ? "length" : "stop";
      return { text: result.response, finishReason, tokens, promptTokens: prompt.length, cachedTokens };
    } catch (error) {
      healthy = input.signal.aborted;
      throw error;
    } finally {
      // After an unexpected failure the slot's cache may not match its tokens: start it empty.
      if (!healthy) await slot.sequence.clearHistory().catch(() => undefined);
      this.pool.release(slot);
    }
  }

  /** The job's key and how many of its prompt's tokens are the operator's (shared with every key). */
  private scopeOf(input: GenerationInput, prompt: readonly number[]): CacheScope | undefined {
    if (!input.cacheScope) return undefined;
    const operator = this.promptTokens(toHistory(input.cacheScope.sharedTurns));
    return { owner: input.cacheScope.owner, sharedTokens: sharedPrefixLength(prompt, operator) };
  }

  /** Keeps the slot's first `keep` tokens only; if that fails, none. */
  private async cut(slot: LlamaSlot, keep: number): Promise<void> {
    const end = slot.sequence.nextTokenIndex;
    try {
      if (end > keep) await slot.sequence.eraseContextTokenRanges([{ start: keep, end }]);
    } catch {
      await slot.sequence.clearHistory();
    }
  }

  /** The prompt exactly as LlamaChat renders it: the history, then an empty model turn to fill. */
  private promptTokens(history: ChatHistoryItem[]): number[] {
    const chatWrapper = this.pool.slots[0]?.chat.chatWrapper;
    if (!chatWrapper) throw new Error("the engine has no slots");
    const { contextText } = chatWrapper.generateContextState({
      chatHistory: [...history, { type: "model", response: [] }],
    });
    return contextText.tokenize(this.model.tokenizer);
  }

  async close(): Promise<void> {
    for (const slot of this.pool.slots) slot.chat.dispose({ disposeSequence: false });
    await this.context.dispose();
    // The Llama bindings are shared by every engine in the process and live as long as it does.
    await this.model.dispose();
  }
}
