import { retryDelayMs, sleep, type RetryPolicy } from "./retry.js";
import { isFinal, statusPath, streamStatusOnce, type StreamEnd } from "./status-stream.js";
import { parseJson, type Transport } from "./transport.js";
import type { StatusRecord } from "./types.js";

export interface WaitSettings {
  /** Try the SSE stream first (else poll from the start). */
  stream: boolean;
  /** `Prefer: wait=N` of each poll, in seconds (the server caps it at 60). */
  pollWaitSeconds: number;
  /** Between polls to a server that answers at once (no `Prefer: wait` there). */
  pollIntervalMs: number;
  firstEventTimeoutMs: number;
  idleTimeoutMs: number;
  retry: RetryPolicy;
}

export interface WaitCall {
  id: string;
  onUpdate?: (record: StatusRecord, id: string) => void;
  signal?: AbortSignal;
}

/**
 * Waits for the final record of one request: on its SSE stream, resuming with `Last-Event-ID` after
 * a drop, and polling with `Prefer: wait` when the server answers JSON, a proxy holds the stream
 * back, or the stream keeps breaking before any event comes. `onUpdate` sees each new snapshot once.
 */
export class StatusWaiter {
  private lastSeen = "";
  private lastEventId = "";
  private streaming: boolean;
  private fruitlessDrops = 0;

  constructor(
    private readonly transport: Transport,
    private readonly settings: WaitSettings,
    private readonly call: WaitCall,
  ) {
    this.streaming = settings.stream;
  }

  async run(): Promise<StatusRecord> {
    for (;;) {
      const final = this.streaming ? await this.streamOnce() : await this.pollOnce();
      if (final) return final;
    }
  }

  private show(record: StatusRecord): void {
    const seen = JSON.stringify(record);
    if (seen === this.lastSeen) return;
    this.lastSeen = seen;
    this.call.onUpdate?.(record, this.call.id);
  }

  private async streamOnce(): Promise<StatusRecord | null> {
    const { firstEventTimeoutMs, idleTimeoutMs } = this.settings;
    const options = {
      lastEventId: this.lastEventId,
      onRecord: (record: StatusRecord) => this.show(record),
      signal: this.call.signal,
      firstEventTimeoutMs,
      idleTimeoutMs,
    };
    const end = await streamStatusOnce(this.transport, this.call.id, options);
    return this.afterStream(end);
  }

  private async afterStream(end: StreamEnd): Promise<StatusRecord | null> {
    switch (end.kind) {
      case "final":
        return end.record;
      case "unsupported":
        this.streaming = false;
        this.show(end.record);
        return isFinal(end.record) ? end.record : null;
      case "held":
        this.streaming = false;
        this.lastEventId = end.lastEventId || this.lastEventId;
        return null;
      case "dropped":
        this.lastEventId = end.lastEventId || this.lastEventId;
        this.fruitlessDrops = end.progressed ? 0 : this.fruitlessDrops + 1;
        if (this.fruitlessDrops > this.settings.retry.maxRetries) this.streaming = false;
        // A stream that made progress is resumed at once; one that keeps failing, after a growing backoff.
        else if (this.fruitlessDrops > 0)
          await sleep(retryDelayMs(this.fruitlessDrops - 1, undefined, this.settings.retry), this.call.signal);
        return null;
    }
  }

  /** One `Prefer: wait` poll (429 and 5xx are retried by the transport, after `Retry-After`). */
  private async pollOnce(): Promise<StatusRecord | null> {
    const headers = { prefer: `wait=${this.settings.pollWaitSeconds}` };
    const { record, waited } = await this.transport.request(
      { path: statusPath(this.call.id), headers, signal: this.call.signal },
      async (response) => ({
        record: await parseJson<StatusRecord>(response),
        waited: response.headers.has("preference-applied"),
      }),
    );
    this.show(record);
    if (isFinal(record)) return record;
    if (!waited) await sleep(this.settings.pollIntervalMs, this.call.signal);
    return null;
  }
}
