// One chat with one model: its turns and the request body the API expects for them.

/** Character models need these on every message (docs/spec/api.md); `default` ignores them. */
const USER_ID = "playground";

const newId = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);

export class Conversation {
  constructor(model) {
    this.model = model;
    this.chatId = newId();
    this.turns = [];
  }

  /** Adds a turn (`role` "You" or "Bot") and returns a function that takes it back out. */
  add(role, content) {
    const turn = { role, content, createdAt: new Date().toISOString() };
    this.turns.push(turn);
    return () => {
      const at = this.turns.indexOf(turn);
      if (at >= 0) this.turns.splice(at, 1);
    };
  }

  /** The generation request for the conversation so far. */
  request({ botName, persona, sampling }) {
    const messages = this.turns.map(({ role, content, createdAt }, index) =>
      this.model === "default" ? { role, content, index } : { role, content, index, id: `${this.chatId}-${index}`, messageIndex: index, chatId: this.chatId, userId: USER_ID, createdAt },
    );
    const body = { messages, samplingParams: sampling };
    if (botName) body.botName = botName;
    if (persona) body.persona = persona;
    return body;
  }
}
