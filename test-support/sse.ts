import type { StatusRecord } from "@chorus/contracts";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { waitFor } from "./wait-for.js";

/** One `event: status` of a status stream, its data parsed. */
export interface StatusEvent {
  event: string | undefined;
  id: string | undefined;
  record: StatusRecord;
}

export interface StatusStreamClient {
  response: Response;
  events: StatusEvent[];
  comments: string[];
  /** Resolves when the server has ended the stream (rejects if the client aborted it). */
  ended: Promise<void>;
  /** Waits (two minutes at the most, a hang guard) until `count` events have come. */
  untilEvents(count: number): Promise<StatusEvent[]>;
  /** Goes away as a client that closes the connection. */
  abort(): void;
}

/** Opens GET `url` with Accept: text/event-stream and parses what comes with eventsource-parser. */
export async function openStatusStream(
  url: string,
  apiKey: string,
  headers: Record<string, string> = {},
): Promise<StatusStreamClient> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream", ...headers },
    signal: controller.signal,
  });
  const events: StatusEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) =>
      events.push({ event: message.event, id: message.id, record: JSON.parse(message.data) as StatusRecord }),
    onComment: (comment) => comments.push(comment),
  });
  const read = async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  };
  const ended = read();
  ended.catch(() => undefined); // awaited by the tests that expect an end
  return {
    response,
    events,
    comments,
    ended,
    untilEvents: async (count) => {
      await waitFor(`${count} events (${events.length} came)`, () => events.length >= count, {
        timeoutMs: 120_000,
        intervalMs: 10,
      });
      return events;
    },
    abort: () => controller.abort(),
  };
}
