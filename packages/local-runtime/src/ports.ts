import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's choice). */
export async function freePort(): Promise<number> {
  return bindable(0, "127.0.0.1");
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
