import { UpstreamStatusError } from "../openai-compatible/upstream-client.js";
import { failureDetail, isRetryableStatus, redact, upstreamMessage } from "../openai-compatible/upstream-text.js";
import { SpeechEngineError } from "./speech-engine.js";

/**
 * Turns whatever the `openai` client threw into a SpeechEngineError naming the server (host and
 * port only): its HTTP answer with its own words, our timeout (`timedOutAfterMs`), or a failure to
 * reach it. 429 and 503 are the server being busy; other 4xx are this request's fault.
 */
export function speechServerError(
  error: unknown,
  server: string,
  timedOutAfterMs: number | undefined,
  apiKey: string | undefined,
): SpeechEngineError {
  if (error instanceof UpstreamStatusError) {
    const code = error.status === 429 || error.status === 503 ? "UNAVAILABLE" : "SYNTHESIS_FAILED";
    return new SpeechEngineError(
      code,
      `speech server ${server} answered HTTP ${error.status}: ${upstreamMessage(error.body, apiKey)}`,
      isRetryableStatus(error.status),
    );
  }
  if (timedOutAfterMs !== undefined)
    return new SpeechEngineError(
      "UNAVAILABLE",
      `speech server ${server} did not answer within ${timedOutAfterMs} ms`,
      true,
    );
  return new SpeechEngineError(
    "UNAVAILABLE",
    `could not reach speech server ${server}: ${redact(failureDetail(error), apiKey)}`,
    true,
  );
}
