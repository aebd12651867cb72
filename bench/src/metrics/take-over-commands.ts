import type { Redis } from "ioredis";
import { sleep } from "./clock.js";

/** Commands of BullMQ's take-over machinery seen in a window: the script calls, and the commands run inside them. */
export interface TakeOverCommands {
  calls: number;
  inner: number;
}

/**
 * Whether a client command is one of the scripts that make a dead worker's job come back: the lock
 * renewal (extendLocks: one key, the queue's stalled set) and the stalled check
 * (moveStalledJobsToWait: it names the stalled-check key).
 */
function isTakeOverScript(args: string[]): boolean {
  const [command, , numKeys, ...rest] = args;
  if (!/^eval(sha)?$/i.test(command ?? "")) return false;
  const keys = rest.slice(0, Number(numKeys));
  return keys.some((key) => key.endsWith(":stalled-check")) || (keys.length === 1 && keys[0]!.endsWith(":stalled"));
}

/**
 * Counts those commands for `ms` with MONITOR (a private Redis: it sees everything). A script runs
 * alone, and MONITOR shows its own commands (source "lua") right after its call.
 */
export async function countTakeOverCommands(redis: Redis, ms: number): Promise<TakeOverCommands> {
  const monitor = await redis.monitor();
  const seen: TakeOverCommands = { calls: 0, inner: 0 };
  let inTakeOver = false;
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === "lua") {
      if (inTakeOver) seen.inner++;
      return;
    }
    inTakeOver = isTakeOverScript(args);
    if (inTakeOver) seen.calls++;
  });
  await sleep(ms);
  monitor.disconnect();
  return seen;
}
