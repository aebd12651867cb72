import ipaddr from "ipaddr.js";

/**
 * Where a webhook may not point unless WEBHOOK_ALLOW_PRIVATE=true: the service's own machine and
 * network, and the cloud metadata address (169.254.169.254 is link-local). One rule, used on the
 * URL at submit (gateway) and on every address the host resolves to at delivery (worker).
 */
const REFUSED_RANGES = new Set(["unspecified", "loopback", "private", "linkLocal", "uniqueLocal", "carrierGradeNat", "broadcast", "reserved"]);

/** What a refusal says the address is. */
export const NOT_PUBLIC = "not a public address (loopback, private, link-local, metadata or reserved)";

/** True for an IP address (v4, v6, or v4-mapped v6) in a refused range; false for a public one. */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return REFUSED_RANGES.has(parsed.range());
}

/** A URL host (`[::1]` keeps its brackets in URL.hostname) as a bare IP address, or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

/** Names that mean this machine whatever DNS says. */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** Why `url`'s host (as written, before any DNS lookup) is refused, or null when it may be used. */
export function refusedHostReason(url: URL): string | null {
  if (isLocalName(url.hostname)) return `its host '${url.hostname}' is this machine`;
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null && isPrivateAddress(literal)) return `its host ${literal} is ${NOT_PUBLIC}`;
  return null;
}
