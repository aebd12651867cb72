import { ChorusError } from "./errors.js";
import { newIdempotencyKey } from "./idempotency-key.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { statusPath } from "./status-stream.js";
import { StatusWaiter, type WaitSettings } from "./status-waiter.js";
import { Transport, type FetchLike } from "./transport.js";
import type {
  BatchStatusItem,
  CompletedRecord,
  GenerationRequest,
  ModelId,
  RequestsPage,
  RequestsQuery,
  SpeechAudio,
  SpeechRequest,
  StatusRecord,
  SubmitResponse,
  Voice,
} from "./types.js";

export interface ChorusClientOptions {
  /** Where the gateway answers, e.g. `https://chorus.example.com` (no trailing `/api`). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the platform's `fetch`. */
  fetch?: FetchLike;
  /** Retries of one call after its first attempt (default 4); 0 turns retries off. */
  maxRetries?: number;
  /** Backoff and `Retry-After` limits beyond `maxRetries` (see README: Retries). */
  retry?: Partial<Omit<RetryPolicy, "maxRetries">>;
  /** `wait()` tries the SSE stream before polling (default true). */
  stream?: boolean;
  /** `Prefer: wait=N` of each poll when `wait()` polls (default 30 s). */
  pollWaitSeconds?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface SubmitOptions extends CallOptions {
  /** Generated (a random UUID) when not given; every retry of this submit sends the same. */
  idempotencyKey?: string;
}

export interface WaitOptions extends CallOptions {
  /** Each new snapshot of the record: queue position, progress, ETA, `partialReply`, then the final record. */
  onUpdate?: (record: StatusRecord, id: string) => void;
}

export interface GenerateOptions extends SubmitOptions, WaitOptions {
  /**
   * When `signal` aborts after the submit, cancel the request on the server (default true: the caller has no id to
   * cancel it by).
   */
  cancelOnAbort?: boolean;
}

const DEFAULT_FIRST_EVENT_TIMEOUT_MS = 10_000;
/** The server sends a keep-alive after 15 s of silence: three missed means the connection is gone. */
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
const DEFAULT_POLL_INTERVAL_MS = 1000;

/**
 * A client of the Chorus API. Every method takes an AbortSignal; errors are ChorusError (an abort rejects with the
 * signal's reason).
 */
export class ChorusClient {
  private readonly transport: Transport;
  private readonly waitSettings: WaitSettings;

  constructor(options: ChorusClientOptions) {
    const retry: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      ...options.retry,
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    };
    // Called through a closure: a browser's fetch throws when called as another object's method.
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.transport = new Transport({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      apiKey: options.apiKey,
      fetch: fetchImpl,
      retry,
    });
    this.waitSettings = {
      stream: options.stream ?? true,
      pollWaitSeconds: options.pollWaitSeconds ?? 30,
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
      firstEventTimeoutMs: DEFAULT_FIRST_EVENT_TIMEOUT_MS,
      idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
      retry,
    };
  }

  /** Queues a generation; `{ id, tokens: -1 }`. Safe to retry: one Idempotency-Key for all attempts. */
  submit(model: ModelId, body: GenerationRequest, options: SubmitOptions = {}): Promise<SubmitResponse> {
    const headers = { "idempotency-key": options.idempotencyKey ?? newIdempotencyKey() };
    return this.transport.json<SubmitResponse>({
      method: "POST",
      path: `/api/text/${encodeURIComponent(model)}`,
      headers,
      body,
      signal: options.signal,
    });
  }

  /** The record as it stands. */
  status(id: string, options: CallOptions = {}): Promise<StatusRecord> {
    return this.transport.json<StatusRecord>({ path: statusPath(id), signal: options.signal });
  }

  /** The final record (`completed` or `error`: it does not reject on `error`), streamed or, failing that, polled. */
  wait(id: string, options: WaitOptions = {}): Promise<StatusRecord> {
    return new StatusWaiter(this.transport, this.waitSettings, { id, ...options }).run();
  }

  /**
   * submit + wait: the completed record with its id; a request that ends `error` rejects with ChorusError
   * `REQUEST_FAILED`.
   */
  async generate(model: ModelId, body: GenerationRequest, options: GenerateOptions = {}): Promise<CompletedRecord> {
    const { id } = await this.submit(model, body, options);
    let record: StatusRecord;
    try {
      record = await this.wait(id, options);
    } catch (error) {
      if (options.signal?.aborted && (options.cancelOnAbort ?? true)) await this.cancel(id).catch(() => undefined);
      throw error;
    }
    if (record.status === "completed") return { ...record, id } as CompletedRecord;
    throw ChorusError.requestFailed(id, record);
  }

  /**
   * Stops a processing request; the record, now `error: "cancelled"`. A request already cancelled
   * answers that record too (a retried cancel whose first attempt worked); one that finished
   * otherwise is 409 CONFLICT.
   */
  async cancel(id: string, options: CallOptions = {}): Promise<StatusRecord> {
    try {
      return await this.transport.json<StatusRecord>({
        method: "DELETE",
        path: statusPath(id),
        signal: options.signal,
      });
    } catch (error) {
      if (!(error instanceof ChorusError && error.code === "CONFLICT")) throw error;
      const record = await this.status(id, options);
      if (record.status === "error" && record.error === "cancelled") return record;
      throw error;
    }
  }

  /**
   * Text to speech: the audio bytes and what the headers say of them. Safe to retry (an Idempotency-Key).
   * Asks for the whole file (`Prefer: stream=false`): this resolves with all of it anyway, and so
   * gets its duration in a header (a streamed answer sends it as a trailer, which fetch cannot read).
   */
  speech(request: SpeechRequest, options: SubmitOptions = {}): Promise<SpeechAudio> {
    const headers = {
      "idempotency-key": options.idempotencyKey ?? newIdempotencyKey(),
      accept: "audio/*",
      prefer: "stream=false",
    };
    return this.transport.request(
      { method: "POST", path: "/api/audio/full", headers, body: request, signal: options.signal },
      speechAudio,
    );
  }

  /**
   * The spoken reply of a request submitted with `speak` (its completed record's `audioUrl`): the
   * audio bytes, as `speech` gives them. Counts against the speech budget; a record without
   * `audioUrl` (no `speak`, or `audioError`) rejects with NOT_FOUND.
   */
  replyAudio(record: Pick<StatusRecord, "audioUrl"> & { id: string }, options: CallOptions = {}): Promise<SpeechAudio> {
    if (!record.audioUrl)
      return Promise.reject(
        new ChorusError({
          code: "NOT_FOUND",
          message: `request '${record.id}' has no spoken reply (submit it with speak)`,
        }),
      );
    return this.transport.request(
      { path: record.audioUrl, headers: { accept: "audio/*" }, signal: options.signal },
      speechAudio,
    );
  }

  async voices(options: CallOptions = {}): Promise<Voice[]> {
    return (await this.transport.json<{ voices: Voice[] }>({ path: "/api/voices", signal: options.signal })).voices;
  }

  /** The key's text requests, newest first, a page at a time. */
  requests(query: RequestsQuery = {}, options: CallOptions = {}): Promise<RequestsPage> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set("status", query.status);
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.cursor !== undefined) params.set("cursor", query.cursor);
    const search = params.toString();
    return this.transport.json<RequestsPage>({
      path: `/api/v2/requests${search ? `?${search}` : ""}`,
      signal: options.signal,
    });
  }

  /** Many statuses in one call (1 to 100 ids; it costs one status poll per id). */
  async statuses(ids: readonly string[], options: CallOptions = {}): Promise<BatchStatusItem[]> {
    const path = `/api/v2/status?ids=${ids.map(encodeURIComponent).join(",")}`;
    return (await this.transport.json<{ data: BatchStatusItem[] }>({ path, signal: options.signal })).data;
  }
}

async function speechAudio(response: Response): Promise<SpeechAudio> {
  return {
    audio: new Uint8Array(await response.arrayBuffer()),
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
    durationSeconds: numberHeader(response, "x-audio-duration"),
    sampleRate: numberHeader(response, "x-sample-rate"),
  };
}

function numberHeader(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  return value === null || value === "" || Number.isNaN(Number(value)) ? null : Number(value);
}
