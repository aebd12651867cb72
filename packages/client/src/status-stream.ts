import { ChorusError } from "./errors.js";
import { SseParser } from "./sse-parser.js";
import { parseJson, type Transport } from "./transport.js";
import type { StatusRecord } from "./types.js";

export interface StreamOptions {
  /** `Last-Event-ID` to resume from ("" on the first connection). */
  lastEventId: string;
  onRecord: (record: StatusRecord) => void;
  signal?: AbortSignal;
  /** The server sends the first snapshot at once: nothing by then means something between holds the stream back. */
  firstEventTimeoutMs: number;
  /** The server sends a keep-alive every 15 s of silence: longer means the connection is dead. */
  idleTimeoutMs: number;
}

/**
 * How one connection ended: with the final record; dropped before it (`progressed` if an event
 * came first); `held` when nothing came in time (a proxy that buffers); `unsupported` when the
 * server answered JSON (no SSE there), with that record.
 */
export type StreamEnd =
  | { kind: "final"; record: StatusRecord; lastEventId: string }
  | { kind: "dropped"; progressed: boolean; lastEventId: string }
  | { kind: "held"; lastEventId: string }
  | { kind: "unsupported"; record: StatusRecord };

export const isFinal = (record: StatusRecord): boolean => record.status !== "processing";

export function statusPath(id: string): string {
  return `/api/v2/status/${encodeURIComponent(id)}`;
}

class Stalled extends Error {}

/** Opens the status stream of `id` once and reads it until the final record, a drop, or a stall. */
export async function streamStatusOnce(transport: Transport, id: string, options: StreamOptions): Promise<StreamEnd> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", forwardAbort, { once: true });
  try {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (options.lastEventId) headers["last-event-id"] = options.lastEventId;
    const response = await transport.send({ path: statusPath(id), headers, signal: controller.signal });
    if (!response.headers.get("content-type")?.startsWith("text/event-stream"))
      return { kind: "unsupported", record: await parseJson<StatusRecord>(response) };
    return await readEvents(response, controller, options);
  } finally {
    options.signal?.removeEventListener("abort", forwardAbort);
  }
}

async function readEvents(response: Response, controller: AbortController, options: StreamOptions): Promise<StreamEnd> {
  let final: StatusRecord | null = null;
  let events = 0;
  const parser = new SseParser((event) => {
    if (event.event !== "status") return;
    events++;
    const record = parseRecord(event.data);
    options.onRecord(record);
    if (isFinal(record)) final = record;
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let timer = setTimeout(() => controller.abort(new Stalled()), options.firstEventTimeoutMs);
  try {
    for (;;) {
      const chunk = await readChunk(reader, controller.signal, options.signal);
      if (chunk === null) break;
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new Stalled()), options.idleTimeoutMs);
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (final) return { kind: "final", record: final, lastEventId: parser.lastEventId };
    }
  } catch (error) {
    if (!(error instanceof Stalled)) throw error;
    if (events === 0) return { kind: "held", lastEventId: parser.lastEventId };
  } finally {
    clearTimeout(timer);
    // Closes the connection at once (also on abort or a throwing onRecord): the server drops the stream.
    reader.cancel().catch(() => undefined);
  }
  return { kind: "dropped", progressed: events > 0, lastEventId: parser.lastEventId };
}

/** The next chunk, null at the end; a connection that breaks is an end too, a stall or the caller's abort is not. */
async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  connection: AbortSignal,
  caller: AbortSignal | undefined,
): Promise<Uint8Array | null> {
  try {
    const { done, value } = await reader.read();
    return done ? null : value;
  } catch {
    if (caller?.aborted) throw caller.reason;
    if (connection.reason instanceof Stalled) throw connection.reason;
    return null;
  }
}

function parseRecord(data: string): StatusRecord {
  try {
    return JSON.parse(data) as StatusRecord;
  } catch (cause) {
    throw new ChorusError({
      code: "INVALID_RESPONSE",
      message: `a status event that is not JSON: ${data.slice(0, 200)}`,
      cause,
    });
  }
}
