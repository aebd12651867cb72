/**
 * The worker's own compiled eSpeak NG engine, for the speech rows' direct baseline. The bench reaches
 * into apps/worker/dist by relative path (the same from bench/src and bench/dist); this module is
 * the only place that does so for speech, so a move in the worker breaks one import, here.
 */
export { EspeakSpeechEngine } from "../../../apps/worker/dist/engines/tts/espeak.speech-engine.js";
