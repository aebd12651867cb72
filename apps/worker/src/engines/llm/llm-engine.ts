import type { EngineFeatures, ResponseFormat, SamplingKnobs, ToolCall, ToolsRequest } from "@chorus/contracts";

/** A chat turn in the engine-neutral form every text engine accepts. */
export interface ChatTurn {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface SamplingOptions {
  maxTokens: number;
  /** 0: greedy (the most likely token every time). */
  temperature: number;
  topP: number;
  /** The sampler's seed: the same seed, input and model give the same reply. */
  seed: number;
  /** The extra sampling fields the request set (only those the engine's `features` name reach it). */
  knobs?: SamplingKnobs;
  /**
   * The client asked for a reproducible reply (its own seed, or temperature 0): the engine must give
   * the same reply whatever its caches hold (llama-server then reads the prompt afresh).
   */
  reproducible?: boolean;
}

export interface GenerationProgress {
  /** Tokens generated so far in this job (not counting the prompt). */
  tokens: number;
  /** The reply so far, where the engine can tell it (raw: the caller cleans it as it cleans the reply). */
  text?: string;
}

export interface GenerationInput {
  /** The system turn first (when there is one), then the conversation in order. */
  turns: ChatTurn[];
  /**
   * A text to continue as it is, without the chat template (`turns` is then empty, and `stop` holds
   * every stop sequence: there are no turn markers). Only for engines whose features name rawPrompt.
   */
  rawPrompt?: string;
  sampling: SamplingOptions;
  /** The client's stop sequences, on top of the turn markers every engine stops before (stopSequencesFor). */
  stop?: readonly string[];
  /** Aborting stops generation promptly; the engine then rejects with the signal's reason. */
  signal: AbortSignal;
  /** Called as tokens stream; callers throttle their own writes. */
  onProgress: (progress: GenerationProgress) => void;
  /**
   * A client reads the reply as it grows: report each token's text as soon as the engine has it, even
   * at some cost to the decode rate (llama-server then streams its answer instead of being polled).
   */
  streamText?: boolean;
  /**
   * Functions the model may call, for an engine that takes them as such (`takesTools`): it is sent
   * them and reports the calls it answered with. Other engines get them stated in the system turn.
   */
  tools?: ToolsRequest;
  /** The reply must be JSON of this form (only when the engine's `features` name it). */
  responseFormat?: ResponseFormat;
  /**
   * Whose prompt this is (the API key's id) and the operator's own turns at its start (the
   * character's system turn), which every key shares on purpose: an engine with a prompt cache
   * reuses another key's cache only as far as those turns go. Absent: not scoped.
   */
  cacheScope?: { owner: string; sharedTurns: ChatTurn[] };
}

/** Why generation ended: the engine stopped by itself (end of text, a stop sequence), or at its token limit. */
export type EngineFinish = "stop" | "length";

export interface GenerationResult {
  text: string;
  /** `length` when `maxTokens` (or the end of the context) cut the reply, else `stop`. */
  finishReason: EngineFinish;
  /** Tokens generated (prompt tokens excluded). */
  tokens: number;
  promptTokens: number;
  /** Prompt tokens taken from a cache instead of being read again (0 when the engine cannot tell). */
  cachedTokens: number;
  /** The calls the model answered with (engines that take tools as such); `text` is then empty. */
  toolCalls?: ToolCall[];
}

/** A text engine: in-process llama.cpp, or a remote OpenAI-compatible server. */
export interface LlmEngine {
  readonly name: string;
  /** Tokens one generation can hold: prompt and reply together. */
  readonly contextTokens: number;
  /** What it honours beyond the contract's sampling fields; absent: nothing. */
  readonly features?: EngineFeatures;
  /**
   * It takes tools as such (an OpenAI-compatible server: `tools` in its request, `tool_calls` in its
   * answer). Absent: an engine with the tools feature has them stated in the prompt and forced by a grammar.
   */
  readonly takesTools?: boolean;
  /**
   * Tokens the prompt made from `turns` takes, chat template included: exact for llama.cpp (in
   * process or its server), an estimate for other remote servers (their tokenizer is not at hand).
   */
  countPromptTokens(turns: ChatTurn[]): Promise<number>;
  /** Tokens a raw prompt takes (engines whose features name rawPrompt). */
  countRawPromptTokens?(prompt: string): Promise<number>;
  generate(input: GenerationInput): Promise<GenerationResult>;
  close(): Promise<void>;
}
