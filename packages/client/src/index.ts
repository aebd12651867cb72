export {
  ChorusClient,
  type CallOptions,
  type ChorusClientOptions,
  type GenerateOptions,
  type SubmitOptions,
  type WaitOptions,
} from "./chorus-client.js";
export { ChorusError, type ChorusErrorInit, type ClientErrorCode } from "./errors.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
export { SseParser, type SseEvent } from "./sse-parser.js";
export type { FetchLike } from "./transport.js";
export type * from "./types.js";
