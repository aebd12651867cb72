import { connect, createServer, type Socket } from "node:net";

export interface ThrottledProxy {
  /** `redis://127.0.0.1:<port>`: connect through this instead of the target. */
  url: string;
  close(): Promise<void>;
}

const TICK_MS = 20;

/** Forwards `from` to `to` at most `bytesPerSecond`, pausing `from` while too much is held back. */
function throttle(from: Socket, to: Socket, bytesPerSecond: number): void {
  const perTick = Math.max(1, Math.floor((bytesPerSecond * TICK_MS) / 1000));
  const held: Buffer[] = [];
  let heldBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const pump = () => {
    timer = undefined;
    for (let budget = perTick; budget > 0 && held.length > 0;) {
      const head = held[0] as Buffer;
      const part = head.subarray(0, budget);
      to.write(part);
      budget -= part.length;
      heldBytes -= part.length;
      if (part.length === head.length) held.shift();
      else held[0] = head.subarray(part.length);
    }
    if (heldBytes < 4 * perTick) from.resume();
    if (held.length > 0) timer = setTimeout(pump, TICK_MS);
  };
  from.on("data", (chunk: Buffer) => {
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes >= 4 * perTick) from.pause();
    timer ??= setTimeout(pump, TICK_MS);
  });
  from.on("close", () => clearTimeout(timer));
}

/**
 * A TCP proxy in front of Redis whose replies reach each client connection at most `bytesPerSecond`:
 * a slow link, on which a large reply takes long while small ones on other connections do not.
 */
export async function startThrottledProxy(targetUrl: string, bytesPerSecond: number): Promise<ThrottledProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    throttle(upstream, client, bytesPerSecond);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("proxy did not bind");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
