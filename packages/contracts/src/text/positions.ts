import { ApiError } from "../errors.js";
import type { Message } from "./generation-request.js";

/**
 * The spec orders messages by `index` (0, 1, 2, ... consecutive); on `default`, `messageIndex` may
 * stand in for it. Accepts any array order and returns the messages sorted by position.
 */
export function orderByPosition(messages: Message[]): Message[] {
  const seen = new Map<number, number>();
  messages.forEach((message, i) => {
    const position = message.index ?? message.messageIndex;
    if (position === undefined) {
      throw ApiError.invalidParameter(
        `messages[${i}].index`,
        "integer",
        `messages[${i}].index (or messageIndex) is required`,
      );
    }
    if (position >= messages.length || seen.has(position)) {
      const problem = seen.has(position)
        ? `repeats position ${position}`
        : `is ${position}, past the last position ${messages.length - 1}`;
      throw ApiError.invalidParameter(
        `messages[${i}].${message.index === undefined ? "messageIndex" : "index"}`,
        "integer",
        `message positions must be 0, 1, 2, ... consecutive; messages[${i}] ${problem}`,
      );
    }
    seen.set(position, i);
  });
  // n distinct positions, all below n: exactly 0..n-1.
  return messages.map((_, position) => messages[seen.get(position) as number] as Message);
}
