export { createHandoverQueue, createSpeechQueue, createTextQueue } from "./job-queues.js";
