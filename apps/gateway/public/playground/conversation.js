// @ts-check
// One chat with one model: its turns and the request body the API expects for them.

/** @typedef {import("/playground/client/index.js").ModelId} ModelId */
/** @typedef {import("/playground/client/index.js").Message} Message */
/** @typedef {import("/playground/client/index.js").GenerationRequest} GenerationRequest */
/** @typedef {import("/playground/client/index.js").SamplingParams} SamplingParams */
/** @typedef {{ role: Message["role"], content: string, createdAt: string }} Turn */

/** Character models need these on every message (docs/spec/api.md); `default` ignores them. */
const USER_ID = "playground";

// randomUUID is there only in a secure context (https, localhost): not on a page served over plain http.
const newId = () =>
  typeof globalThis.crypto?.randomUUID === "function"
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

export class Conversation {
  /** @param {ModelId} model */
  constructor(model) {
    this.model = model;
    this.chatId = newId();
    /** @type {Turn[]} */
    this.turns = [];
  }

  /**
   * Adds a turn (`role` "You" or "Bot") and returns a function that takes it back out.
   * @param {Turn["role"]} role
   * @param {string} content
   * @returns {() => void}
   */
  add(role, content) {
    const turn = { role, content, createdAt: new Date().toISOString() };
    this.turns.push(turn);
    return () => {
      const at = this.turns.indexOf(turn);
      if (at >= 0) this.turns.splice(at, 1);
    };
  }

  /**
   * The generation request for the conversation so far.
   * @param {{ botName: string, persona: string, sampling: SamplingParams }} settings
   * @returns {GenerationRequest}
   */
  request({ botName, persona, sampling }) {
    const messages = this.turns.map(({ role, content, createdAt }, index) =>
      this.model === "default"
        ? { role, content, index }
        : {
            role,
            content,
            index,
            id: `${this.chatId}-${index}`,
            messageIndex: index,
            chatId: this.chatId,
            userId: USER_ID,
            createdAt,
          },
    );
    /** @type {GenerationRequest} */
    const body = { messages, samplingParams: sampling };
    if (botName) body.botName = botName;
    if (persona) body.persona = persona;
    return body;
  }
}
