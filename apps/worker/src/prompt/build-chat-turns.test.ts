import { describe, expect, it } from "@jest/globals";
import type { GenerationRequest, Message } from "@chorus/contracts";
import type { Character } from "../characters/character-catalog.js";
import { USER_NAME, buildChatTurns, expandMacros, systemPrompt } from "./build-chat-turns.js";
import { toolsInstructions } from "./tool-calls.js";

const witch: Character = {
  model: "Witch",
  botName: "Morwenna",
  persona: "{{char}} brews nettle tea for {{user}}.",
  traits: [],
  sampling: { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
};

function message(role: Message["role"], content: string, index: number): Message {
  return { role, content, index };
}

function request(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
  return {
    messages: [message("You", "Hello?", 0), message("Bot", "Welcome, dear.", 1), message("You", "Any tea?", 2)],
    botName: "Morwenna",
    samplingParams: { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
    ...overrides,
  };
}

const closing = (botName: string) => `\nAlways answer as ${botName}, in character, replying to User's latest message.`;

describe("systemPrompt of a /v1/chat/completions request", () => {
  it("when the request names no bot, then the character's own name is used", () => {
    const { botName: _omitted, ...unnamed } = request();
    expect(systemPrompt(unnamed, witch)).toBe(
      `You are Morwenna. Morwenna brews nettle tea for User.${closing("Morwenna")}`,
    );
  });

  it("when the request carries instructions, then they follow the character's persona, which stays", () => {
    const prompt = systemPrompt(request({ instructions: "Answer in rhyme, {{user}}." }), witch);
    expect(prompt).toBe(
      `You are Morwenna. Morwenna brews nettle tea for User.\nAnswer in rhyme, User.${closing("Morwenna")}`,
    );
  });

  it("when the request carries tools, then the functions and the call's form close the system turn", () => {
    const tools = { functions: [{ name: "now", description: "The time" }], choice: "auto" as const };
    const prompt = systemPrompt(request({ tools }), witch);
    expect(prompt).toBe(
      `You are Morwenna. Morwenna brews nettle tea for User.${closing("Morwenna")}\n${toolsInstructions(tools)}`,
    );
    expect(prompt).toContain("- now: The time");
  });
});

describe("buildChatTurns", () => {
  it("when a conversation is built, then the system turn comes first and You/Bot map to user/assistant in order", () => {
    const turns = buildChatTurns(request(), witch);
    expect(turns.map((t) => t.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(turns.slice(1)).toEqual([
      { role: "user", content: "Hello?" },
      { role: "assistant", content: "Welcome, dear." },
      { role: "user", content: "Any tea?" },
    ]);
  });

  it("when the request brings no persona, then the system turn names the bot and carries the character's persona", () => {
    const [system] = buildChatTurns(request(), witch);
    expect(system).toEqual({
      role: "system",
      content: `You are Morwenna. Morwenna brews nettle tea for User.${closing("Morwenna")}`,
    });
  });

  it("when the request brings a persona, then it replaces the character's default", () => {
    const [system] = buildChatTurns(request({ persona: "  A grumpy {{char}} who hates tea.  " }), witch);
    expect(system?.content).toBe(`You are Morwenna. A grumpy Morwenna who hates tea.${closing("Morwenna")}`);
    expect(system?.content).not.toContain("nettle");
  });

  it("when the request persona is blank or empty, then the character's persona is used", () => {
    for (const persona of ["", "   ", "\n\t "]) {
      expect(systemPrompt(request({ persona }), witch)).toBe(
        `You are Morwenna. Morwenna brews nettle tea for User.${closing("Morwenna")}`,
      );
    }
  });

  it("when the request names a different bot, then that name is used in the system turn and the macros", () => {
    expect(systemPrompt(request({ botName: "Hazel" }), witch)).toBe(
      `You are Hazel. Hazel brews nettle tea for User.${closing("Hazel")}`,
    );
  });

  it("when macros vary in case and inner spacing, then each is expanded", () => {
    const text = "{{char}}|{{CHAR}}|{{ Char }}|{{user}}|{{USER}}|{{  user\t}}";
    expect(expandMacros(text, "Aldric")).toBe(`Aldric|Aldric|Aldric|${USER_NAME}|${USER_NAME}|${USER_NAME}`);
    expect(USER_NAME).toBe("User");
  });

  it("when text only resembles a macro, then it is left alone", () => {
    expect(expandMacros("{char} {{chars}} {{ us er }}", "Aldric")).toBe("{char} {{chars}} {{ us er }}");
  });

  it("when the bot name contains `$` sequences, then it is inserted literally", () => {
    expect(expandMacros("{{char}} and {{char}}", "Ca$$h")).toBe("Ca$$h and Ca$$h");
    expect(expandMacros("I am {{char}}", "$&")).toBe("I am $&");
  });
});
