import type { RedisClient } from "@chorus/platform/redis";

/**
 * One subscriber connection on one pub/sub channel, subscribed on first use: a gateway holds one per
 * channel, whatever the number of requests listening. ioredis subscribes again after a reconnect.
 */
export class ChannelSubscriber {
  private subscription: Promise<void> | null = null;

  constructor(
    private readonly connection: RedisClient,
    private readonly channel: string,
    onMessage: (message: string) => void,
  ) {
    connection.on("message", (from: string, message: string) => {
      if (from === channel) onMessage(message);
    });
  }

  /** Settles once subscribed; a failed subscription is tried again by the next call. Never rejects. */
  subscribed(): Promise<void> {
    this.subscription ??= this.connection.subscribe(this.channel).then(
      () => undefined,
      () => {
        this.subscription = null;
      },
    );
    return this.subscription;
  }

  close(): void {
    this.connection.disconnect();
  }
}
