import ipaddr from "ipaddr.js";

/*
 * Where a webhook may not point unless WEBHOOK_ALLOW_PRIVATE=true: the service's own machine and
 * network, and the cloud metadata address (169.254.169.254 is link-local). One rule, used on the
 * URL at submit (gateway) and on every address the host resolves to at delivery (worker). Ranges
 * are ipaddr.js's names, so its maintained list decides what each range is.
 */
const REFUSED_V4 = new Set([
  "unspecified",
  "loopback",
  "private",
  "linkLocal",
  "carrierGradeNat",
  "broadcast",
  "reserved",
]);
// Site-local (fec0::/10) is deprecated but still routed inside some networks: refused outright.
const REFUSED_V6 = new Set(["unspecified", "loopback", "linkLocal", "uniqueLocal", "deprecatedSiteLocal", "reserved"]);

/** IPv4-compatible `::a.b.c.d` (RFC 4291, deprecated): the one embedding ipaddr.js names no range for. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

const v4At = (bytes: number[], from: number) => new ipaddr.IPv4(bytes.slice(from, from + 4));
const last32 = (bytes: number[]) => [v4At(bytes, 12)];

/**
 * The IPv4 addresses an IPv6 address of these ranges reaches through a translator or a tunnel
 * (NAT64 on an IPv6-only cluster, a 6to4 or Teredo relay, the kernel's own mapping), read from its
 * 16 bytes; null when they cannot be read, which is refused. Each must be public for it to be.
 */
const EMBEDDED_V4: Record<string, (bytes: number[]) => ipaddr.IPv4[] | null> = {
  ipv4Mapped: last32, // ::ffff:a.b.c.d
  rfc6145: last32, // ::ffff:0:a.b.c.d (SIIT)
  ipv4Compatible: last32,
  // NAT64 (RFC 6052): 64:ff9b::/96 carries it last. A network using the local 64:ff9b:1::/48 may
  // choose a shorter prefix that puts it elsewhere, so only that /96 layout is read there.
  rfc6052: (bytes) => (bytes.slice(6, 12).every((byte) => byte === 0) ? last32(bytes) : null),
  "6to4": (bytes) => [v4At(bytes, 2)], // 2002:aabb:ccdd::/48
  // Teredo 2001::/32: the server's address, then the client's with every bit flipped.
  teredo: (bytes) => [v4At(bytes, 4), new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff))],
};

/** What a refusal says the address is. */
export const NOT_PUBLIC =
  "not a public address (loopback, private, link-local, site-local, metadata or reserved, also as IPv4 inside IPv6)";

function isRefusedV6(address: ipaddr.IPv6): boolean {
  const named = address.range();
  const range = named === "unicast" && address.match(IPV4_COMPATIBLE) ? "ipv4Compatible" : named;
  if (REFUSED_V6.has(range)) return true;
  const embedded = EMBEDDED_V4[range]?.(address.toByteArray());
  if (embedded === undefined) return false;
  return embedded === null || embedded.some((inner) => REFUSED_V4.has(inner.range()));
}

/** True for an IP address (v4, or v6 in any form) in a refused range; false for a public one or a name. */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed instanceof ipaddr.IPv4 ? REFUSED_V4.has(parsed.range()) : isRefusedV6(parsed);
}

/** A URL host (`[::1]` keeps its brackets in URL.hostname) as a bare IP address, or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

/** Names that mean this machine whatever DNS says (RFC 6761). */
export function isLocalName(hostname: string): boolean {
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
