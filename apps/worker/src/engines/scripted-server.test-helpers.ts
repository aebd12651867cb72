import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A fake upstream on 127.0.0.1 that records requests and plays scripted responses in order. */
export interface ScriptedServer<Recorded, Scripted> {
  baseUrl: string;
  requests: Recorded[];
  enqueue(...responses: Scripted[]): void;
  close(): Promise<void>;
}

export interface ScriptedServerState<Recorded, Scripted> {
  requests: Recorded[];
  queue: Scripted[];
}

/** Listens on an ephemeral loopback port; a handler that throws drops the connection. */
export async function startScriptedServer<Recorded, Scripted, State extends ScriptedServerState<Recorded, Scripted>>(
  state: State,
  handle: (req: IncomingMessage, res: ServerResponse, state: State) => Promise<void>,
): Promise<ScriptedServer<Recorded, Scripted>> {
  const server = createServer((req, res) => {
    handle(req, res, state).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests: state.requests,
    enqueue: (...responses) => void state.queue.push(...responses),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
