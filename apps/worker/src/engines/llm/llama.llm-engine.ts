import { getLlama, LlamaChat, LlamaLogLevel, type ChatHistoryItem, type LlamaContext, type LlamaModel } from "node-llama-cpp";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";

export interface LlamaEngineOptions {
  modelPath: string;
  /** CPU threads for llama.cpp; must not exceed the cores available (see ENGINES.md). */
  threads: number;
  /** Concurrent generations: one context sequence each. */
  sequences: number;
  /** Upper bound on tokens of context per sequence (clamped to what the model was trained on). */
  contextSize: number;
  gpu: "auto" | false;
}

/** `You:`-style turns the model may start writing on its own; the reply stops before them. */
const STOP_TRIGGERS = ["\nYou:", "\nUser:", "\n### User"];

function toHistory(turns: ChatTurn[]): ChatHistoryItem[] {
  return turns.map((turn): ChatHistoryItem => {
    if (turn.role === "system") return { type: "system", text: turn.content };
    if (turn.role === "user") return { type: "user", text: turn.content };
    return { type: "model", response: [turn.content] };
  });
}

/**
 * llama.cpp in-process. One model and one context with N sequences serve N jobs at once; each job
 * borrows a sequence and returns it when done. The chat template comes from the GGUF itself.
 */
export class LlamaLlmEngine implements LlmEngine {
  readonly name = "llama.cpp";
  readonly contextTokens: number;

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
  ) {
    this.contextTokens = context.contextSize;
  }

  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  static async load(options: LlamaEngineOptions): Promise<LlamaLlmEngine> {
    const llama = await getLlama({ gpu: options.gpu, maxThreads: options.threads, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: options.modelPath });
    const contextSize = Math.min(options.contextSize, model.trainContextSize);
    const context = await model.createContext({ sequences: options.sequences, contextSize, threads: options.threads });
    return new LlamaLlmEngine(model, context);
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    input.signal.throwIfAborted();
    const sequence = this.context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence });
    let tokens = 0;
    try {
      const result = await chat.generateResponse(toHistory(input.turns), {
        maxTokens: input.sampling.maxTokens,
        temperature: input.sampling.temperature,
        topP: input.sampling.topP,
        signal: input.signal,
        customStopTriggers: STOP_TRIGGERS,
        onToken: (chunk) => {
          tokens += chunk.length;
          input.onProgress({ tokens });
        },
      });
      const promptTokens = Math.max(sequence.nextTokenIndex - tokens, 0);
      return { text: result.response, tokens, promptTokens };
    } finally {
      chat.dispose({ disposeSequence: false });
      sequence.dispose();
    }
  }

  async close(): Promise<void> {
    await this.context.dispose();
    // The Llama bindings are shared by every engine in the process and live as long as it does.
    await this.model.dispose();
  }
}
