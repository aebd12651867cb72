import type { GenerationRequest, Message } from "@chorus/contracts";
import type { Character } from "../characters/character-catalog.js";
import type { ChatTurn } from "../engines/llm/llm-engine.js";
import { toolsInstructions } from "./tool-calls.js";

/** What `{{user}}` becomes: the API carries no display name for the person chatting. */
export const USER_NAME = "User";

export function expandMacros(text: string, botName: string): string {
  // Replacer functions, not strings: a bot name such as "Ca$$h" must not be read as a `$` pattern.
  return text.replace(/\{\{\s*char\s*\}\}/gi, () => botName).replace(/\{\{\s*user\s*\}\}/gi, () => USER_NAME);
}

/**
 * The request's persona (or the character's default one) and bot name (or the character's), with
 * the character's built-in traits, which stay whatever persona a request brings, and then the
 * instructions of a /v1 request's system messages: they add to the persona, never replace it; last,
 * the functions a /v1 request offers.
 */
export function systemPrompt(
  request: Pick<GenerationRequest, "persona" | "botName" | "instructions" | "tools">,
  character: Character,
): string {
  const botName = request.botName ?? character.botName;
  const persona = expandMacros(request.persona?.trim() || character.persona, botName);
  const traits = character.traits.length > 0 ? `\n${botName} is ${character.traits.join("; ")}.` : "";
  const instructions = request.instructions ? `\n${expandMacros(request.instructions, botName)}` : "";
  const tools = request.tools ? `\n${toolsInstructions(request.tools)}` : "";
  return `You are ${botName}. ${persona}${traits}${instructions}\nAlways answer as ${botName}, in character, replying to ${USER_NAME}'s latest message.${tools}`;
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

/**
 * The operator's own turns at the start of every prompt with this character (its system turn as no
 * request changes it): every key's cache may be reused this far, and no farther.
 */
export function operatorTurns(character: Character): ChatTurn[] {
  return [{ role: "system", content: systemPrompt({}, character) }];
}
