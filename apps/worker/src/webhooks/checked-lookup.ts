import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isPrivateAddress, NOT_PUBLIC } from "@chorus/contracts";
import type { HostResolver } from "./webhook-dns.js";

/** The code of the error a refused destination fails with (the delivery then stops for good). */
export const ADDRESS_REFUSED = "ERR_WEBHOOK_ADDRESS_REFUSED";

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
}

/** Why the addresses a host resolved to cannot be used, or null. */
function refusal(hostname: string, addresses: LookupAddress[], allowPrivate: boolean): AddressRefusedError | null {
  const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
  if (refused) return new AddressRefusedError(`${hostname} resolves to ${refused.address}, ${NOT_PUBLIC}`);
  return addresses.length === 0 ? new AddressRefusedError(`${hostname} resolves to no address`) : null;
}

/**
 * A `lookup` for the socket of a webhook POST: it resolves the host (HostResolver: its own deadline,
 * off the thread pool), refuses it when any address is not public by the submit's own rule,
 * isPrivateAddress (unless `allowPrivate`), and hands the socket exactly the addresses it checked, so
 * a second DNS answer (rebinding) cannot switch them after the check. Node calls it with `all: true`
 * (Happy Eyeballs) or without; both shapes are answered.
 */
export function checkedLookup(allowPrivate: boolean, resolver: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver.resolve(hostname).then(
      (resolved) => {
        const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
        const addresses = family ? resolved.filter((entry) => entry.family === family) : resolved;
        const refused = refusal(hostname, addresses, allowPrivate);
        const [first] = addresses;
        if (refused || !first) return callback(refused, "", 0);
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
