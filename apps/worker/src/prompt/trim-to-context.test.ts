import type { ChatTurn } from "../engines/llm/llm-engine.js";
import { trimToContext } from "./trim-to-context.js";

/**
 * One token per character keeps the arithmetic visible; each turn also costs 8 tokens of template,
 * and one token of the context stays free (node-llama-cpp's rule for keeping a conversation whole).
 */
const countSync = (turns: ChatTurn[]) => turns.reduce((sum, turn) => sum + turn.content.length + 8, 0);
const count = (turns: ChatTurn[]) => Promise.resolve(countSync(turns));
const system: ChatTurn = { role: "system", content: "S".repeat(12) }; // 20 tokens with overhead
const message = (i: number): ChatTurn => ({
  role: i % 2 === 0 ? "user" : "assistant",
  content: String(i).padStart(12, "m"),
}); // 20 each

describe("trimToContext", () => {
  it("when everything fits, then nothing is dropped", async () => {
    const turns = [system, message(0), message(1)];
    expect(await trimToContext(turns, { contextTokens: 101, replyTokens: 40, countPromptTokens: count })).toEqual({
      turns,
      droppedMessages: 0,
      promptTokens: 60,
      fits: true,
    });
  });

  it("when it does not fit, then the oldest messages go first and the system turn stays", async () => {
    const turns = [system, message(0), message(1), message(2), message(3)];
    // 121 - 1 (kept free) - 40 (reply) - 20 (system) = 60: room for the newest three messages.
    const trimmed = await trimToContext(turns, { contextTokens: 121, replyTokens: 40, countPromptTokens: count });
    expect(trimmed.droppedMessages).toBe(1);
    expect(trimmed.turns).toEqual([system, message(1), message(2), message(3)]);
    expect(trimmed).toMatchObject({ promptTokens: 80, fits: true });
  });

  it("when even the newest message is over budget, then it alone is kept", async () => {
    const turns = [system, message(0), { role: "user", content: "x".repeat(500) } as ChatTurn];
    const trimmed = await trimToContext(turns, { contextTokens: 100, replyTokens: 50, countPromptTokens: count });
    expect(trimmed.turns).toEqual([system, turns[2]]);
    expect(trimmed.droppedMessages).toBe(1);
    expect(trimmed).toMatchObject({ promptTokens: 20 + 508, fits: false });
  });

  it("when the context holds the prompt, the reply and one free token, then everything is kept; one less and the oldest goes", async () => {
    const turns = [system, message(0), message(1)];
    expect(
      (await trimToContext(turns, { contextTokens: 60 + 40 + 1, replyTokens: 40, countPromptTokens: count }))
        .droppedMessages,
    ).toBe(0);
    expect(
      (await trimToContext(turns, { contextTokens: 60 + 40, replyTokens: 40, countPromptTokens: count }))
        .droppedMessages,
    ).toBe(1);
  });

  it("when there are many messages, then the prompt is counted a few times, not once per message", async () => {
    const turns = [system, ...Array.from({ length: 200 }, (_, i) => message(i))];
    let calls = 0;
    const counting = (t: ChatTurn[]) => (calls++, Promise.resolve(countSync(t)));
    const trimmed = await trimToContext(turns, { contextTokens: 1041, replyTokens: 20, countPromptTokens: counting });
    expect(trimmed.droppedMessages).toBe(200 - 50); // (1041 - 1 - 20 - 20) / 20
    expect(calls).toBeLessThanOrEqual(9);
  });

  it("when there is no system turn, then only messages are counted and kept", async () => {
    const turns = [message(0), message(1), message(2)];
    const trimmed = await trimToContext(turns, { contextTokens: 81, replyTokens: 40, countPromptTokens: count });
    expect(trimmed).toEqual({ turns: [message(1), message(2)], droppedMessages: 1, promptTokens: 40, fits: true });
  });
});
