/**
 * `@chorus/audio`: mono 16-bit PCM encoded whole (`encodeAudio`) or a piece at a time
 * (`createStreamEncoder`) to every format of the API; the WAV reader, format sniffing, joining and
 * time-stretching that the speech engines need around it. CPU-bound WASM: call it off the main thread.
 */
export { encodeAudio } from "./encode-audio.js";
export { loadFlac } from "./flac.encoder.js";
export { joinWithFades } from "./join-chunks.js";
export type { PcmAudio } from "./pcm-audio.js";
export { describeAudioBytes, hasContainerSignature, sniffAudioFormat } from "./sniff-format.js";
export type { StreamEncoder } from "./stream-encoder.js";
export { createStreamEncoder } from "./stream-encoder.factory.js";
export { timeStretch } from "./time-stretch.js";
export { decodeWav } from "./wav.codec.js";
