import type { LookupAddress } from "node:dns";
import { Resolver } from "node:dns/promises";
import { isLocalName } from "@chorus/contracts";

/** The code of the error a lookup past its deadline fails with (the attempt is retried like any other failure). */
export const DNS_TIMEOUT = "ERR_WEBHOOK_DNS_TIMEOUT";

export class DnsTimeoutError extends Error {
  readonly code = DNS_TIMEOUT;
}

export interface HostResolverOptions {
  /** WEBHOOK_DNS_TIMEOUT_MS: a lookup's whole time, both address families together. */
  timeoutMs: number;
  /** WEBHOOK_DNS_SERVERS (`ip` or `ip:port`); absent: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
}

const TRIES = 2;

/**
 * Resolves webhook hosts with DNS queries made on the event loop (c-ares, `dns.promises.Resolver`),
 * never with `dns.lookup`: that one is getaddrinfo on libuv's thread pool (one thread in the worker,
 * UV_THREADPOOL_SIZE=1), where a name whose servers never answer would stall every other lookup and
 * the process's file I/O for the system resolver's timeouts. Each lookup has its own deadline. It
 * does not read /etc/hosts; `localhost` and `*.localhost` are this machine (RFC 6761).
 */
export class HostResolver {
  private readonly resolver: Resolver;

  constructor(private readonly options: HostResolverOptions) {
    this.resolver = new Resolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / TRIES)), tries: TRIES });
    if (options.servers && options.servers.length > 0) this.resolver.setServers([...options.servers]);
  }

  /** Every IPv4 and IPv6 address of `hostname`; throws the lookup's error when it has none. */
  async resolve(hostname: string): Promise<LookupAddress[]> {
    if (isLocalName(hostname))
      return [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ];
    const [v4, v6] = await this.withinDeadline(
      hostname,
      Promise.allSettled([this.resolver.resolve4(hostname), this.resolver.resolve6(hostname)]),
    );
    const addresses = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    throw v4.status === "rejected" ? v4.reason : new Error(`${hostname} has no address`);
  }

  /** Ends the lookups still waiting for an answer. */
  close(): void {
    this.resolver.cancel();
  }

  private async withinDeadline<T>(hostname: string, lookup: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      const message = `dns: no answer for ${hostname} within ${this.options.timeoutMs} ms`;
      timer = setTimeout(() => reject(new DnsTimeoutError(message)), this.options.timeoutMs);
    });
    return Promise.race([lookup, late]).finally(() => clearTimeout(timer));
  }
}
