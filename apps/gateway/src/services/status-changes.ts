import type { RedisClient } from "@chorus/platform/redis";
import { ChannelSubscriber } from "./channel-subscriber.js";
import { ListenersById } from "./listeners-by-id.js";

/** What an open status stream is told: its record changed, or the gateway is shutting down. */
export interface StatusChangeListener {
  changed(): void;
  closing(): void;
}

/**
 * Tells the gateway's open status streams that their record changed, without polling Redis: every
 * status write publishes the request id on one channel, and this gateway holds one subscriber
 * connection for all its streams, with a map from id to the streams open on it. A stream that goes
 * is taken out of the map at once. A message lost while the connection is down is made up for by
 * the stream's own re-read when it has been silent a while.
 */
export class StatusChanges {
  private readonly listeners = new ListenersById<StatusChangeListener>();
  private readonly subscriber: ChannelSubscriber;

  constructor(connection: RedisClient, channel: string) {
    this.subscriber = new ChannelSubscriber(connection, channel, (requestId) => {
      for (const listener of this.listeners.of(requestId)) listener.changed();
    });
  }

  /**
   * Registers `listener` for `requestId` at once; `subscribed` settles once a change can no longer
   * be missed (read the record after it), and never rejects. Returns the way to stop listening.
   */
  listen(requestId: string, listener: StatusChangeListener): { subscribed: Promise<void>; stop: () => void } {
    return { subscribed: this.subscriber.subscribed(), stop: this.listeners.add(requestId, listener) };
  }

  /** Streams listening now (a gauge for metrics and tests). */
  get listening(): number {
    return this.listeners.size;
  }

  /** Ends every open stream (each closes its response) and disconnects, so the server can close. */
  close(): void {
    for (const listener of this.listeners.all()) listener.closing();
    this.subscriber.close();
  }
}
