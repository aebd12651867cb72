// @ts-check
// The playground: settings on the left, the chat on the right. It talks to the API through the
// SDK, @chorus/client: its browser build, which the gateway serves from packages/client/dist.
import { ChorusClient } from "/playground/client/index.js";
import { BatchesView } from "./batches.js";
import { MODELS, loadCharacter } from "./characters.js";
import { Conversation } from "./conversation.js";
import { byId, find } from "./dom.js";
import { ReplyView } from "./reply-view.js";
import { setUpTabs } from "./tabs.js";

/** @typedef {import("/playground/client/index.js").Voice} Voice */
/** @typedef {import("./characters.js").Character} Character */
/**
 * @typedef {{ userTurn: HTMLLIElement, takeBack: () => void, view: ReplyView }} Turn One exchange in the log, and its
 * message in the conversation.
 */

const KEY_STORAGE = "chorus.apiKey";
/** The formats offered are those the browser can play; `pcm` (raw samples) is left out: no browser plays it. */
const AUDIO_TYPES = { mp3: "audio/mpeg", wav: "audio/wav", opus: "audio/ogg; codecs=opus", flac: "audio/flac" };

const ui = {
  key: byId("api-key", HTMLInputElement),
  usageToday: byId("usage-today", HTMLParagraphElement),
  model: byId("model", HTMLSelectElement),
  description: byId("model-description", HTMLParagraphElement),
  botName: byId("bot-name", HTMLInputElement),
  persona: byId("persona", HTMLTextAreaElement),
  maxTokens: byId("max-tokens", HTMLInputElement),
  temperature: byId("temperature", HTMLInputElement),
  voice: byId("voice", HTMLSelectElement),
  speed: byId("speed", HTMLInputElement),
  format: byId("format", HTMLSelectElement),
  log: byId("log", HTMLOListElement),
  error: byId("error", HTMLParagraphElement),
  composer: byId("composer", HTMLFormElement),
  message: byId("message", HTMLTextAreaElement),
  send: find(document, "[data-testid=send]", HTMLButtonElement),
  audio: byId("audio", HTMLAudioElement),
  tabs: find(document, "[role=tablist]", HTMLDivElement),
};

/** The Batches view: its batches are of the key pasted, for the model and max tokens chosen here. */
const batches = new BatchesView({
  apiKey: () => ui.key.value.trim(),
  model: () => ui.model.value,
  maxTokens: () => Number(ui.maxTokens.value),
});

/** @type {Map<string, Character>} */
const characters = new Map();
/**
 * The chat with the model chosen: start() begins the first before the page takes a message.
 * @type {Conversation}
 */
let conversation;
/** @type {Voice[]} */
let voices = [];
/** @type {string | undefined} */
let audioUrl;

/** A client of this gateway (the page's own origin) with the key pasted into the page. */
const client = () => new ChorusClient({ baseUrl: location.origin, apiKey: ui.key.value.trim() });

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** @param {unknown} error */
function showError(error) {
  ui.error.textContent = messageOf(error);
  ui.error.hidden = false;
}

function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = "";
}

/**
 * @param {string} value
 * @param {string} label
 */
const option = (value, label) => Object.assign(document.createElement("option"), { value, textContent: label });

/**
 * The character of `model`, one of MODELS: start() loads them all before any is shown.
 * @param {string} model
 */
function characterOf(model) {
  const character = characters.get(model);
  if (!character) throw new Error(`the character of ${model} is not loaded`);
  return character;
}

/** The character's own voice from the catalogue, when it has one. */
function chooseVoice() {
  const own = voices.find((voice) => voice.character === ui.model.value);
  if (own) ui.voice.value = own.id;
}

async function loadVoices() {
  if (!ui.key.value.trim()) return;
  try {
    voices = await client().voices();
    ui.voice.replaceChildren(...voices.map((voice) => option(voice.id, `${voice.id} — ${voice.description}`)));
    chooseVoice();
    clearError();
  } catch (error) {
    showError(error);
  }
}

/**
 * @typedef {{ requests: { completed: number, error: number, cancelled: number }, promptTokens: number,
 *   completionTokens: number, audioSeconds: number }} UsageTotal What GET /api/v2/usage totals.
 */

/** The key's usage today (UTC), from GET /api/v2/usage: what its finished requests used. */
async function showUsageToday() {
  const key = ui.key.value.trim();
  if (!key) return;
  const today = new Date().toISOString().slice(0, 10);
  try {
    const res = await fetch(`/api/v2/usage?from=${today}&to=${today}`, { headers: { Authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`usage: HTTP ${res.status}`);
    const { total } = /** @type {{ total: UsageTotal }} */ (await res.json());
    const { completed, error, cancelled } = total.requests;
    const requests = completed + error + cancelled;
    ui.usageToday.textContent =
      `Usage today (UTC): ${requests} request${requests === 1 ? "" : "s"} (${completed} completed, ${error} failed, ` +
      `${cancelled} cancelled) · ${total.promptTokens} prompt + ${total.completionTokens} completion tokens · ` +
      `${total.audioSeconds} s of audio`;
  } catch (error) {
    ui.usageToday.textContent = `Usage today: could not be read (${messageOf(error)})`;
  }
}

/**
 * A new chat with `model`, its character's name and persona as the defaults.
 * @param {string} model
 */
function selectModel(model) {
  const character = characterOf(model);
  ui.description.textContent = character.description;
  ui.botName.value = character.botName;
  ui.persona.value = character.persona;
  ui.maxTokens.value = String(character.sampling.max_tokens);
  ui.temperature.value = String(character.sampling.temperature);
  conversation = new Conversation(character.model);
  ui.log.replaceChildren();
  chooseVoice();
}

/** @param {string} text */
function appendUserTurn(text) {
  const item = Object.assign(document.createElement("li"), { className: "turn you" });
  item.append(
    Object.assign(document.createElement("span"), { className: "who", textContent: "You" }),
    Object.assign(document.createElement("div"), { textContent: text }),
  );
  ui.log.append(item);
  return item;
}

/** @param {string} text */
async function speak(text) {
  clearError();
  // The options are AUDIO_TYPES' keys.
  const format = /** @type {keyof typeof AUDIO_TYPES} */ (ui.format.value);
  try {
    const { audio, contentType } = await client().speech({
      text,
      voice: ui.voice.value || undefined,
      speed: Number(ui.speed.value),
      format,
    });
    if (audioUrl) URL.revokeObjectURL(audioUrl);
    // The SDK reads the bytes with response.arrayBuffer(): their buffer is an ArrayBuffer, never shared.
    audioUrl = URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (audio)], { type: contentType }));
    ui.audio.src = audioUrl;
    await ui.audio.play();
  } catch (error) {
    showError(error);
  }
}

/**
 * The user's message is taken back: it goes into the box again, to send once the problem is fixed.
 * @param {Turn} turn
 * @param {string} text
 */
function takeBackTurn({ userTurn, takeBack, view }, text) {
  view.remove();
  userTurn.remove();
  takeBack();
  ui.message.value = text;
}

/**
 * One turn: the user's message, then the reply followed live until it is final.
 * @param {string} text
 */
async function send(text) {
  const chat = conversation;
  const userTurn = appendUserTurn(text);
  const takeBack = chat.add("You", text);
  const sampling = { max_tokens: Number(ui.maxTokens.value), temperature: Number(ui.temperature.value) };
  const body = chat.request({ botName: ui.botName.value.trim(), persona: ui.persona.value.trim(), sampling });
  const api = client();
  /** @type {string | undefined} */
  let id;
  let stopAsked = false;
  // A request that has just finished cannot be cancelled (CONFLICT): its final record is on its way.
  /** @param {string} requestId */
  const stop = (requestId) => api.cancel(requestId).catch((error) => error.code !== "CONFLICT" && showError(error));
  const view = new ReplyView(ui.log, body.botName || "Assistant", {
    onStop: () => {
      stopAsked = true;
      if (id !== undefined) void stop(id);
    },
    onSpeak: speak,
  });
  /** @type {Turn} */
  const turn = { userTurn, takeBack, view };
  try {
    ({ id } = await api.submit(chat.model, body));
  } catch (error) {
    showError(error);
    return takeBackTurn(turn, text);
  }
  // Stop was pressed before the request had an id.
  if (stopAsked) void stop(id);
  try {
    const record = await api.wait(id, { onUpdate: (snapshot) => view.update(snapshot) });
    view.finish(record);
    if (record.status === "completed") chat.add("Bot", record.reply ?? "");
    void showUsageToday();
  } catch (error) {
    showError(error);
    view.finish({ status: "error", error: messageOf(error) });
  }
}

/** @param {SubmitEvent} event */
async function onSubmit(event) {
  event.preventDefault();
  const text = ui.message.value.trim();
  // Enter submits the form even while Send is disabled (a reply is still being written).
  if (!text || ui.send.disabled) return;
  if (!ui.key.value.trim()) {
    showError(new Error("Paste an API key first."));
    return ui.key.focus();
  }
  clearError();
  ui.message.value = "";
  ui.send.disabled = true;
  try {
    await send(text);
  } finally {
    ui.send.disabled = false;
    ui.message.focus();
  }
}

/** The key first, before anything is awaited: what the user pastes meanwhile is kept, never overwritten. */
function restoreKey() {
  const stored = sessionStorage.getItem(KEY_STORAGE);
  if (stored) ui.key.value = stored;
  ui.key.addEventListener("input", () => sessionStorage.setItem(KEY_STORAGE, ui.key.value.trim()));
  ui.key.addEventListener("change", loadVoices);
  ui.key.addEventListener("change", showUsageToday);
  ui.key.addEventListener("change", () => batches.keyChanged());
}

async function start() {
  for (const character of await Promise.all(MODELS.map(loadCharacter))) characters.set(character.model, character);
  ui.model.replaceChildren(
    ...MODELS.map((model) =>
      option(model, model === "default" ? "default — general assistant" : `${model} — ${characterOf(model).botName}`),
    ),
  );
  ui.format.replaceChildren(
    ...Object.entries(AUDIO_TYPES).flatMap(([format, type]) =>
      ui.audio.canPlayType(type) ? [option(format, format)] : [],
    ),
  );
  selectModel(ui.model.value);
  ui.model.addEventListener("change", () => selectModel(ui.model.value));
  ui.composer.addEventListener("submit", onSubmit);
  ui.message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ui.composer.requestSubmit();
    }
  });
  ui.send.disabled = false;
  await Promise.all([loadVoices(), showUsageToday()]);
}

restoreKey();
setUpTabs(ui.tabs, (panel) => (panel === "batches-view" ? batches.show() : batches.hide()));
start().catch(showError);
