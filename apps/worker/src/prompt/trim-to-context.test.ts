import type { ChatTurn } from "../engines/llm/llm-engine.js";
import { trimToContext } from "./trim-to-context.js";

/** One token per character keeps the arithmetic visible; each turn also costs 8 tokens of overhead. */
const count = (text: string) => text.length;
const system: ChatTurn = { role: "system", content: "S".repeat(12) }; // 20 tokens with overhead
const message = (i: number): ChatTurn => ({ role: i % 2 === 0 ? "user" : "assistant", content: String(i).padStart(12, "m") }); // 20 each

describe("trimToContext", () => {
  it("when everything fits, then nothing is dropped", () => {
    const turns = [system, message(0), message(1)];
    expect(trimToContext(turns, { contextTokens: 100, replyTokens: 40, countTokens: count })).toEqual({ turns, droppedMessages: 0 });
  });

  it("when it does not fit, then the oldest messages go first and the system turn stays", () => {
    const turns = [system, message(0), message(1), message(2), message(3)];
    // 120 - 40 (reply) - 20 (system) = 60: room for the newest three messages.
    const trimmed = trimToContext(turns, { contextTokens: 120, replyTokens: 40, countTokens: count });
    expect(trimmed.droppedMessages).toBe(1);
    expect(trimmed.turns).toEqual([system, message(1), message(2), message(3)]);
  });

  it("when even the newest message is over budget, then it alone is kept", () => {
    const turns = [system, message(0), { role: "user", content: "x".repeat(500) } as ChatTurn];
    const trimmed = trimToContext(turns, { contextTokens: 100, replyTokens: 50, countTokens: count });
    expect(trimmed.turns).toEqual([system, turns[2]]);
    expect(trimmed.droppedMessages).toBe(1);
  });

  it("when there is no system turn, then only messages are counted and kept", () => {
    const turns = [message(0), message(1), message(2)];
    const trimmed = trimToContext(turns, { contextTokens: 80, replyTokens: 40, countTokens: count });
    expect(trimmed).toEqual({ turns: [message(1), message(2)], droppedMessages: 1 });
  });
});
