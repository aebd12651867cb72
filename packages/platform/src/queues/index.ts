export { createHandoverQueue, createSpeechQueue, createSpokenReplyQueue, createTextQueue } from "./job-queues.js";
