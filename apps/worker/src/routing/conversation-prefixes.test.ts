import { describe, expect, it } from "@jest/globals";
import type { GenerateTextJob } from "@chorus/contracts";
import { conversationPrefixes, MAX_PREFIXES, prefixesAfterReply } from "./conversation-prefixes.js";

type Chat = Pick<GenerateTextJob, "keyId" | "model" | "request">;

function chat(contents: string[], overrides: Partial<GenerateTextJob["request"]> = {}): Chat {
  const messages = contents.map((content, i) => ({ role: i % 2 === 0 ? ("You" as const) : ("Bot" as const), content }));
  return {
    keyId: "key-a",
    model: "Witch",
    request: { messages, botName: "Bot", samplingParams: { max_tokens: 10, temperature: 1, top_p: 1 }, ...overrides },
  };
}

describe("conversationPrefixes", () => {
  it("when a conversation grows by a reply and a message, then its next turn starts with every prefix it had", () => {
    const first = chat(["hi", "hello", "how are you?"]);
    const after = prefixesAfterReply(first, "fine");
    const next = conversationPrefixes(chat(["hi", "hello", "how are you?", "fine", "good"]));
    expect(next.slice(0, after.length)).toEqual(after);
    expect(after.slice(0, 3)).toEqual(conversationPrefixes(first));
  });

  it("when anything that shapes the prompt differs, then no prefix is shared", () => {
    const base = conversationPrefixes(chat(["hi", "hello"]));
    const others = [
      conversationPrefixes({ ...chat(["hi", "hello"]), model: "Mage" }),
      // Another key's identical chat: routing never sends a key where another key's conversation is cached.
      conversationPrefixes({ ...chat(["hi", "hello"]), keyId: "key-b" }),
      conversationPrefixes(chat(["hi", "hello"], { persona: "a cat" })),
      conversationPrefixes(chat(["hi", "hello"], { botName: "Tom" })),
      conversationPrefixes(chat(["hi", "hello"], { instructions: "be brief" })),
      conversationPrefixes(chat(["Hi", "hello"])),
    ];
    for (const other of others) expect(other.filter((hash) => base.includes(hash))).toEqual([]);
  });

  it("when only sampling or message ids differ, then the prefixes are the same", () => {
    const plain = chat(["hi", "hello"]);
    const withIds: Chat = {
      ...plain,
      request: {
        ...plain.request,
        samplingParams: { max_tokens: 99, temperature: 0.2, top_p: 0.5, seed: 3 },
        messages: plain.request.messages.map((m, i) => ({ ...m, id: `m${i}`, createdAt: "2026-01-01" })),
      },
    };
    expect(conversationPrefixes(withIds)).toEqual(conversationPrefixes(plain));
  });

  it("when a conversation is longer than the limit, then only its latest boundaries are named", () => {
    const contents = Array.from({ length: MAX_PREFIXES + 10 }, (_, i) => `message ${i}`);
    const all = conversationPrefixes(chat(contents));
    expect(all).toHaveLength(MAX_PREFIXES);
    expect(all.at(-1)).toEqual(prefixesAfterReply(chat(contents.slice(0, -1)), contents.at(-1)!).at(-1));
  });
});
