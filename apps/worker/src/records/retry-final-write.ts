import { setTimeout as delay } from "node:timers/promises";

export interface RetryOptions {
  /** Tries in all, the first included. */
  attempts?: number;
  /** Wait before the second try; each later wait doubles. */
  firstDelayMs?: number;
  /** Told of each failed try that will be tried again. */
  onRetry?: (error: unknown, attempt: number) => void;
  sleep?: (ms: number) => Promise<unknown>;
}

/**
 * A job's final status write (its reply or its error) is retried with exponential backoff: the
 * worker's connection waits out a disconnect by itself, so what fails here is Redis answering with
 * an error for a while (LOADING after a restart, READONLY during a failover, OOM, BUSY). The defaults
 * span about 8 s; the lost-job sweep closes whatever is still unwritten after that.
 */
export async function retryFinalWrite<T>(write: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 6, firstDelayMs = 250, onRetry, sleep = delay } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts) throw error;
      onRetry?.(error, attempt);
      await sleep(firstDelayMs * 2 ** (attempt - 1));
    }
  }
}
