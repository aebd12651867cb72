import ipaddr from "ipaddr.js";
import { ipLiteralOf } from "./webhook-address.js";

/** Most entries in one key's list of webhook hosts. */
export const MAX_WEBHOOK_HOSTS = 100;

/**
 * One entry of a key's webhook hosts: a host name (`hooks.example.com`), a name under a domain
 * (`*.example.com`: any depth below it, not the domain itself) or an IP address.
 */
export const webhookHostPatternSchema = {
  type: "string",
  minLength: 1,
  maxLength: 255,
  pattern: "^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\\[?[0-9A-Fa-f:.]+\\]?$",
} as const;

export const webhookHostsSchema = {
  type: "array",
  items: webhookHostPatternSchema,
  maxItems: MAX_WEBHOOK_HOSTS,
  uniqueItems: true,
  description:
    "The only hosts this key's `webhook` may name: `hooks.example.com`, `*.example.com` (any name below it, not itself) or an IP address. An empty list refuses every webhook; absent, any host the address rules allow.",
} as const;

function normalName(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

function sameAddress(a: string, b: string): boolean {
  return (
    ipaddr.isValid(a) &&
    ipaddr.isValid(b) &&
    ipaddr.parse(a).toNormalizedString() === ipaddr.parse(b).toNormalizedString()
  );
}

/** Whether a URL's host (`URL.hostname`, IPv6 in brackets) is one of `patterns`. */
export function hostAllowed(patterns: readonly string[], hostname: string): boolean {
  const literal = ipLiteralOf(hostname);
  const name = normalName(hostname);
  return patterns.some((pattern) => {
    const bare = pattern.replace(/^\[(.*)\]$/, "$1");
    if (literal !== null || ipaddr.isValid(bare)) return literal !== null && sameAddress(literal, bare);
    const wanted = normalName(pattern);
    return wanted.startsWith("*.") ? name.endsWith(wanted.slice(1)) : name === wanted;
  });
}
