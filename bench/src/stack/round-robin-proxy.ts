import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The balancer a user would put in front of several llama-servers without Chorus: each request goes
 * to the next server in turn (round robin), whatever it holds. Bodies are piped through untouched.
 */
export interface RoundRobinProxy {
  url: string;
  stop(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? "/", upstreams[next++ % upstreams.length]);
    const forwarded = request(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on("error", (error) => outgoing.destroy(error));
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
