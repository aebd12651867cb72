import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isPrivateAddress, NOT_PUBLIC } from "@chorus/contracts";

/** The code of the error a refused destination fails with (the delivery then stops for good). */
export const ADDRESS_REFUSED = "ERR_WEBHOOK_ADDRESS_REFUSED";

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
}

/**
 * A `lookup` for the socket of a webhook POST: it resolves the host, refuses it when any address is
 * not public by the submit's own rule, isPrivateAddress (unless `allowPrivate`), and hands the socket exactly
 * the addresses it checked, so a second DNS answer (rebinding) cannot switch them after the check.
 * Node calls it with `all: true` (Happy Eyeballs) or without; both shapes are answered.
 */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused)
        return callback(new AddressRefusedError(`${hostname} resolves to ${refused.address}, ${NOT_PUBLIC}`), "", 0);
      const first = addresses[0];
      if (!first) return callback(new AddressRefusedError(`${hostname} resolves to no address`), "", 0);
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
