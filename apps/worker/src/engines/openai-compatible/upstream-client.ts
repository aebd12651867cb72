import OpenAI, { APIError } from "openai";

export interface UpstreamClientOptions {
  /** The server (`http://host:8000`) or its API root (`http://host:8000/v1`); see apiRoot. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; without one, no Authorization header is sent at all. */
  apiKey?: string | undefined;
  fetch?: typeof fetch | undefined;
}

/** `.../v1` is kept; anything else gets `/v1` appended: the root both chat and speech hang from. */
export function apiRoot(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, "");
  return root.endsWith("/v1") ? root : `${root}/v1`;
}

/**
 * An upstream's non-2xx answer with its body as sent. The SDK's own APIError keeps only the body's
 * `error` field and prints it in its message; ours keeps the whole body (servers put the reason in
 * `message` or `detail` too) and a message without it, so no secret an upstream echoes gets out
 * unless our redacting mapping lets it.
 */
export class UpstreamStatusError extends APIError<number, Headers, undefined> {
  override readonly name = "UpstreamStatusError";

  constructor(
    status: number,
    readonly body: string,
    headers: Headers,
  ) {
    super(status, undefined, `HTTP ${status}`, headers);
  }
}

class UpstreamClient extends OpenAI {
  protected override makeStatusError(
    status: number,
    error: object | undefined,
    message: string | undefined,
    headers: Headers,
  ): APIError {
    return new UpstreamStatusError(status, message ?? JSON.stringify(error) ?? "", headers);
  }
}

/** setTimeout's ceiling: the SDK's own timeout is switched off this way, our engines own theirs. */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;
/** The SDK refuses to start without a key; one that is never sent (its header is removed below). */
const NO_KEY = "unused";

/**
 * The official `openai` client, set up for a server that speaks OpenAI's protocol: no retries and
 * no timeout of its own (our engines decide both), no logging (it could print what an upstream
 * echoes), and nothing read from OPENAI_* environment variables.
 */
export function createUpstreamClient(options: UpstreamClientOptions): OpenAI {
  return new UpstreamClient({
    baseURL: apiRoot(options.baseUrl),
    apiKey: options.apiKey || NO_KEY,
    organization: null,
    project: null,
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    maxRetries: 0,
    timeout: NO_SDK_TIMEOUT_MS,
    logLevel: "off",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
