// The playground: settings on the left, the chat on the right. It talks to the API through the
// SDK, @chorus/client: its browser build, which the gateway serves from packages/client/dist.
import { ChorusClient } from "/playground/client/index.js";
import { MODELS, loadCharacter } from "./characters.js";
import { Conversation } from "./conversation.js";
import { ReplyView } from "./reply-view.js";

const KEY_STORAGE = "chorus.apiKey";
/** The formats offered are those the browser can play; `pcm` (raw samples) is left out: no browser plays it. */
const AUDIO_TYPES = { mp3: "audio/mpeg", wav: "audio/wav", opus: "audio/ogg; codecs=opus", flac: "audio/flac" };

const byId = (id) => document.getElementById(id);
const ui = {
  key: byId("api-key"),
  model: byId("model"),
  description: byId("model-description"),
  botName: byId("bot-name"),
  persona: byId("persona"),
  maxTokens: byId("max-tokens"),
  temperature: byId("temperature"),
  voice: byId("voice"),
  speed: byId("speed"),
  format: byId("format"),
  log: byId("log"),
  error: byId("error"),
  composer: byId("composer"),
  message: byId("message"),
  send: document.querySelector("[data-testid=send]"),
  audio: byId("audio"),
};

const characters = new Map();
let conversation;
let voices = [];
let audioUrl;

/** A client of this gateway (the page's own origin) with the key pasted into the page. */
const client = () => new ChorusClient({ baseUrl: location.origin, apiKey: ui.key.value.trim() });

function showError(error) {
  ui.error.textContent = error.message;
  ui.error.hidden = false;
}

function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = "";
}

const option = (value, label) => Object.assign(document.createElement("option"), { value, textContent: label });

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

/** A new chat with `model`, its character's name and persona as the defaults. */
function selectModel(model) {
  const character = characters.get(model);
  ui.description.textContent = character.description;
  ui.botName.value = character.botName;
  ui.persona.value = character.persona;
  ui.maxTokens.value = character.sampling.max_tokens;
  ui.temperature.value = character.sampling.temperature;
  conversation = new Conversation(model);
  ui.log.replaceChildren();
  chooseVoice();
}

function appendUserTurn(text) {
  const item = Object.assign(document.createElement("li"), { className: "turn you" });
  item.append(Object.assign(document.createElement("span"), { className: "who", textContent: "You" }), Object.assign(document.createElement("div"), { textContent: text }));
  ui.log.append(item);
  return item;
}

async function speak(text) {
  clearError();
  const format = ui.format.value;
  try {
    const { audio, contentType } = await client().speech({ text, voice: ui.voice.value || undefined, speed: Number(ui.speed.value), format });
    if (audioUrl) URL.revokeObjectURL(audioUrl);
    audioUrl = URL.createObjectURL(new Blob([audio], { type: contentType }));
    ui.audio.src = audioUrl;
    await ui.audio.play();
  } catch (error) {
    showError(error);
  }
}

/** The user's message is taken back: it goes into the box again, to send once the problem is fixed. */
function takeBackTurn({ userTurn, takeBack, view }, text) {
  view.remove();
  userTurn.remove();
  takeBack();
  ui.message.value = text;
}

/** One turn: the user's message, then the reply followed live until it is final. */
async function send(text) {
  const chat = conversation;
  const turn = { userTurn: appendUserTurn(text), takeBack: chat.add("You", text) };
  const sampling = { max_tokens: Number(ui.maxTokens.value), temperature: Number(ui.temperature.value) };
  const body = chat.request({ botName: ui.botName.value.trim(), persona: ui.persona.value.trim(), sampling });
  const api = client();
  let id;
  let stopAsked = false;
  // A request that has just finished cannot be cancelled (CONFLICT): its final record is on its way.
  const stop = () => api.cancel(id).catch((error) => error.code !== "CONFLICT" && showError(error));
  turn.view = new ReplyView(ui.log, body.botName || "Assistant", {
    onStop: () => {
      stopAsked = true;
      if (id !== undefined) void stop();
    },
    onSpeak: speak,
  });
  try {
    ({ id } = await api.submit(chat.model, body));
  } catch (error) {
    showError(error);
    return takeBackTurn(turn, text);
  }
  // Stop was pressed before the request had an id.
  if (stopAsked) void stop();
  try {
    const record = await api.wait(id, { onUpdate: (snapshot) => turn.view.update(snapshot) });
    turn.view.finish(record);
    if (record.status === "completed") chat.add("Bot", record.reply);
  } catch (error) {
    showError(error);
    turn.view.finish({ status: "error", error: error.message });
  }
}

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
}

async function start() {
  for (const character of await Promise.all(MODELS.map(loadCharacter))) characters.set(character.model, character);
  ui.model.replaceChildren(...MODELS.map((model) => option(model, model === "default" ? "default — general assistant" : `${model} — ${characters.get(model).botName}`)));
  ui.format.replaceChildren(...Object.keys(AUDIO_TYPES).flatMap((format) => (ui.audio.canPlayType(AUDIO_TYPES[format]) ? [option(format, format)] : [])));
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
  await loadVoices();
}

restoreKey();
start().catch(showError);
