import type { ReplyDelta } from "@chorus/contracts";
import type { RedisClient } from "@chorus/platform/redis";
import { ChannelSubscriber } from "./channel-subscriber.js";
import { ListenersById } from "./listeners-by-id.js";

/**
 * Hands the streamed completions open on this gateway the growth of their replies, which the
 * workers publish on the reply-delta channel (one subscriber connection for all of them, a map from
 * request id to the streams open on it). A delta lost while the connection is down is made up for
 * by the stream's reads of the record.
 */
export class ReplyDeltas {
  private readonly listeners = new ListenersById<(delta: ReplyDelta) => void>();
  private readonly subscriber: ChannelSubscriber;

  constructor(connection: RedisClient, channel: string) {
    this.subscriber = new ChannelSubscriber(connection, channel, (message) => {
      const delta = parsed(message);
      if (delta) for (const listener of this.listeners.of(delta.id)) listener(delta);
    });
  }

  /** Registers `listener` for `requestId`; `subscribed` settles once the channel is subscribed (never rejects). */
  listen(requestId: string, listener: (delta: ReplyDelta) => void): { subscribed: Promise<void>; stop: () => void } {
    return { subscribed: this.subscriber.subscribed(), stop: this.listeners.add(requestId, listener) };
  }

  close(): void {
    this.subscriber.close();
  }
}

function parsed(message: string): ReplyDelta | null {
  try {
    const delta = JSON.parse(message) as Partial<ReplyDelta>;
    return typeof delta.id === "string" && typeof delta.at === "number" && typeof delta.text === "string"
      ? (delta as ReplyDelta)
      : null;
  } catch {
    return null;
  }
}
