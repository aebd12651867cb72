// The public text-to-speech contract: request schema and type, audio formats, voice catalogue. No I/O.
export * from "./audio-formats.js";
export * from "./voices.js";
export * from "./speech-request.js";
export { speechRequestSchema } from "./speech-request.schema.js";
