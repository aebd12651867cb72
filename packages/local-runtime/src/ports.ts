import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's choice). */
export async function freePort(): Promise<number> {
  return bindable(0, "127.0.0.1");
}

/**
 * The first of `count` consecutive ports on 127.0.0.1 that nothing listens on right now, for a launcher
 * that puts its i-th server on `port + i`. Chosen below Linux's ephemeral range (32768 and up), where
 * the kernel never hands the neighbour of a free port to an outgoing connection meanwhile.
 */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * (12_000 - count));
    const ports = Array.from({ length: count }, (_, i) => first + i);
    const bound = await Promise.all(ports.map((port) => bindable(port, "127.0.0.1").catch(() => null)));
    if (bound.every((port) => port !== null)) return first;
  }
  throw new Error(`no ${count} consecutive free ports found between 20000 and 32000`);
}

/** `port` when it can be bound on every interface right now, else a free one. */
export async function portOrFree(port: number): Promise<number> {
  return (await bindable(port, "0.0.0.0").catch(() => null)) ?? freePort();
}

function bindable(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
