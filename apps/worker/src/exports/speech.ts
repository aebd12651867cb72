/** `@chorus/worker/speech`: the worker's eSpeak NG engine and speech job processor, for the bench and the tests. */
export { EspeakSpeechEngine } from "../engines/tts/espeak.speech-engine.js";
export type { SpeechEngine } from "../engines/tts/speech-engine.js";
export { synthesizeSpeechProcessor } from "../processors/synthesize-speech.processor.js";
