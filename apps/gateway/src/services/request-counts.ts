import { utcDay, type ApiKeyUsage, type UsageOperation } from "@chorus/platform/api-keys";
import { type Logger } from "@chorus/platform/logger";

type Counts = Partial<Record<UsageOperation, number>>;

/**
 * The requests each key's rate limits admitted, counted in memory and added to usage every
 * `intervalMs` (one HINCRBY per key, operation and UTC day; two commands a request cost ~16 % of a
 * poll's CPU). A batch Redis refuses is kept for the next try; a stopping gateway adds what it holds,
 * one killed outright loses its last interval. Other gateways' counts are about an interval behind.
 */
export class RequestCounts {
  /** By key id and UTC day. */
  private pending = new Map<string, { keyId: string; day: string; counts: Counts }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly usage: Pick<ApiKeyUsage, "countRequests">,
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  count(keyId: string, operation: UsageOperation, requests = 1, day = utcDay(Date.now())): void {
    const slot = `${keyId} ${day}`;
    const entry = this.pending.get(slot) ?? { keyId, day, counts: {} };
    entry.counts[operation] = (entry.counts[operation] ?? 0) + requests;
    this.pending.set(slot, entry);
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    await Promise.all([...batch.values()].map((entry) => this.add(entry)));
  }

  /** Stops the timer and adds what is held; what Redis refuses then is lost, and said so. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    const lost = [...this.pending.values()].reduce(
      (sum, { counts }) => sum + Object.values(counts).reduce((a, b) => a + b, 0),
      0,
    );
    if (lost > 0) this.logger.warn("usage not counted: Redis refused it as the gateway stopped", { requests: lost });
    this.pending.clear();
  }

  private async add({ keyId, day, counts }: { keyId: string; day: string; counts: Counts }): Promise<void> {
    try {
      await this.usage.countRequests(keyId, counts, day);
    } catch (error) {
      for (const [operation, requests] of Object.entries(counts))
        this.count(keyId, operation as UsageOperation, requests, day);
      this.logger.warn("could not count usage; kept for the next try", { error: String(error) });
    }
  }
}
