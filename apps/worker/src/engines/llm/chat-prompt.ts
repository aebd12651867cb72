import {
  getLlama,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatHistoryItem,
  type ChatWrapper,
  type LlamaModel,
} from "node-llama-cpp";
import type { ChatTurn } from "./llm-engine.js";

/** The engine-neutral turns as node-llama-cpp's chat history. */
export function toHistory(turns: ChatTurn[]): ChatHistoryItem[] {
  return turns.map((turn): ChatHistoryItem => {
    if (turn.role === "system") return { type: "system", text: turn.content };
    if (turn.role === "user") return { type: "user", text: turn.content };
    return { type: "model", response: [turn.content] };
  });
}

/**
 * A conversation rendered with the model's own chat template and tokenized, in the worker: the
 * GGUF's vocabulary alone is loaded (no weights), and rendering and tokenizing a dozen turns takes
 * ~0.5 ms, against ~4-5 ms for asking llama-server (/apply-template, then /tokenize) over HTTP. The
 * tokens are what llama-server is sent, so the count is exactly what it reads.
 */
export class ChatPrompt {
  private constructor(
    private readonly vocabulary: LlamaModel,
    private readonly chatWrapper: ChatWrapper,
  ) {}

  static async load(modelPath: string): Promise<ChatPrompt> {
    const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error, build: "never" });
    const vocabulary = await llama.loadModel({ modelPath, vocabOnly: true });
    return new ChatPrompt(vocabulary, resolveChatWrapper(vocabulary));
  }

  /** The prompt's tokens: the conversation, then an empty model turn for the reply to fill. */
  tokens(turns: ChatTurn[]): number[] {
    const chatHistory = [...toHistory(turns), { type: "model", response: [] } satisfies ChatHistoryItem];
    return this.chatWrapper.generateContextState({ chatHistory }).contextText.tokenize(this.vocabulary.tokenizer);
  }

  /** A text's tokens as it is (no template), after the BOS token where the model wants one. */
  rawTokens(text: string): number[] {
    const { bos, shouldPrependBosToken } = this.vocabulary.tokens;
    const tokens = this.vocabulary.tokenize(text, false);
    return shouldPrependBosToken && bos !== null ? [bos, ...tokens] : tokens;
  }

  async close(): Promise<void> {
    await this.vocabulary.dispose();
  }
}
