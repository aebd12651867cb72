import { connect } from "node:net";
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

/** `+1700000000.123 [0 127.0.0.1:5000] "evalsha" "…" "1" "key"` -> its source and arguments. */
function parseMonitorLine(line: string): { source: string; args: string[] } | null {
  const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
  if (!match) return null;
  const args = [...match[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
  return { source: match[1]!, args };
}

/**
 * Counts those commands for `ms` with MONITOR on a private Redis (it sees everything), read from a
 * plain socket: a script runs alone, and MONITOR shows its own commands (source "lua") right after
 * its call. (ioredis' monitor mode lost its place in the reply stream under this load once.)
 */
export async function countTakeOverCommands(redisUrl: string, ms: number): Promise<TakeOverCommands> {
  const { hostname, port } = new URL(redisUrl);
  const socket = connect(Number(port), hostname);
  const seen: TakeOverCommands = { calls: 0, inner: 0 };
  let inTakeOver = false;
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\r\n");
    pending = lines.pop() ?? "";
    for (const entry of lines.map(parseMonitorLine)) {
      if (!entry) continue;
      if (entry.source === "lua") seen.inner += inTakeOver ? 1 : 0;
      else {
        inTakeOver = isTakeOverScript(entry.args);
        seen.calls += inTakeOver ? 1 : 0;
      }
    }
  });
  let failure: Error | undefined;
  socket.on("error", (error) => (failure = error));
  socket.write("MONITOR\r\n");
  await sleep(ms);
  socket.destroy();
  if (failure) throw failure;
  return seen;
}
