export { SpeechAudioStore } from "./speech-audio-store.js";
export { readAudioStream, SpeechAudioStreamWriter, type AudioStreamEntry } from "./speech-audio-stream.js";
