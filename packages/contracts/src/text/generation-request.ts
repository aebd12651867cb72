import type { ModelId } from "../models.js";

export type MessageRole = "You" | "Bot";

export interface Message {
  role: MessageRole;
  content: string;
  /** Position in the conversation; on `default` `messageIndex` may stand in for it. */
  index?: number;
  id?: string;
  messageIndex?: number;
  chatId?: string;
  userId?: string;
  createdAt?: string;
  upvote?: number;
  image?: string | null;
}

export interface SamplingParams {
  max_tokens: number;
  temperature: number;
  top_p: number;
  /** Extension: the same seed, request, model and engine give the same reply. Absent: a random seed per job. */
  seed?: number;
}

/** A generation request after validation: defaults filled, messages ordered by position. */
export interface GenerationRequest {
  messages: Message[];
  persona?: string;
  botName: string;
  samplingParams: SamplingParams;
}

export interface SubmitResponse {
  id: string;
  tokens: -1;
}

export type { ModelId };
