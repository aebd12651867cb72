import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The settings that choose an address, named in the message when binding it fails. */
export interface ListenSettings {
  port: string;
  host: string;
}

/** A bind that failed, with a message saying which address and what to set instead. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

function explain(error: NodeJS.ErrnoException, host: string, port: number, settings: ListenSettings): ListenError {
  const where = `${host}:${port}`;
  const messages: Record<string, string> = {
    EADDRINUSE: `cannot listen on ${where}: port ${port} is already in use by another program; stop it, or set ${settings.port} to a free port`,
    EACCES: `cannot listen on ${where}: no permission to bind port ${port} (ports below 1024 need privileges); set ${settings.port} to a port from 1024 up`,
    EADDRNOTAVAIL: `cannot listen on ${where}: ${host} is not an address of this machine; set ${settings.host} to one (127.0.0.1, or 0.0.0.0 for every interface)`,
  };
  const known = error.code ? messages[error.code] : undefined;
  return new ListenError(
    known ?? `cannot listen on ${where}: ${error.message}; check ${settings.host} and ${settings.port}`,
    error.code,
  );
}

/**
 * Binds `server` and resolves with the address it really holds; a bind that fails (port taken, no
 * permission, an address not on this host) rejects with a ListenError naming the port and the
 * setting to change. Never resolves on failure: a process that logs "listening" must be listening.
 */
export function listenOn(server: Server, port: number, host: string, settings: ListenSettings): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(explain(error, host, port, settings));
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** The URL of a bound address as it is, e.g. `http://127.0.0.1:3000`, `http://[::1]:3000`. */
export function httpUrlOf(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** A log line's account of where a server listens, saying so when that is every interface. */
export function describeListening(address: AddressInfo): string {
  const everywhere = ["0.0.0.0", "::"].includes(address.address);
  return `${httpUrlOf(address)}${everywhere ? " (every network interface: reachable from other machines)" : ""}`;
}

/**
 * The response header in which a gateway or worker started by `npm start` names its run
 * (INSTANCE_ID): the launcher asks the port it started a child on and knows from this header that
 * the answer comes from its own child, not from another program that holds the port.
 */
export const INSTANCE_HEADER = "x-chorus-instance";
