import type { GenerationRequest, Message } from "@chorus/contracts";
import type { Character } from "../characters/character-catalog.js";
import type { ChatTurn } from "../engines/llm/llm-engine.js";

/** What `{{user}}` becomes: the API carries no display name for the person chatting. */
export const USER_NAME = "User";

export function expandMacros(text: string, botName: string): string {
  return text.replace(/\{\{\s*char\s*\}\}/gi, botName).replace(/\{\{\s*user\s*\}\}/gi, USER_NAME);
}

export function systemPrompt(request: GenerationRequest, character: Character): string {
  const botName = request.botName;
  const persona = expandMacros(request.persona?.trim() || character.persona, botName);
  return `You are ${botName}. ${persona}\nAlways answer as ${botName}, in character, replying to ${USER_NAME}'s latest message.`;
}

function toTurn(message: Message): ChatTurn {
  return { role: message.role === "You" ? "user" : "assistant", content: message.content };
}

/**
 * The conversation in the engine-neutral form: persona and bot name become the system turn,
 * `You` the user, `Bot` the assistant. Each engine renders it with the model's own chat template.
 */
export function buildChatTurns(request: GenerationRequest, character: Character): ChatTurn[] {
  return [{ role: "system", content: systemPrompt(request, character) }, ...request.messages.map(toTurn)];
}
