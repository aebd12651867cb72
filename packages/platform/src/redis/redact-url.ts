/** ioredis turns every query parameter into an option: `?password=` (or `sentinelPassword=`) logs in too. */
const SECRET_PARAM = /pass|secret|token|auth|key/i;
const SCHEME = /^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i;
const UNPARSEABLE = "(unparseable Redis URL)";

/** A parameter's name as ioredis reads it (decoded); one that does not decode counts as secret. */
function isSecretParam(rawName: string): boolean {
  try {
    return SECRET_PARAM.test(decodeURIComponent(rawName.replace(/\+/g, " ")));
  } catch {
    return true;
  }
}

/** Hides every secret-named parameter's value, up to the next `&` (or the end: more is hidden rather than less). */
function redactQuery(value: string): string {
  return value.replace(/([?&])([^=&]*)=([^&]*)/g, (whole, separator: string, name: string) =>
    isSecretParam(name) ? `${separator}${name}=***` : whole,
  );
}

/**
 * Hides an entry's userinfo password: from the first `:` of its authority to the entry's last `@`
 * (a password may hold `/`, `?` or `#` unencoded; ioredis would refuse it, the log must not show it).
 */
function redactUserinfo(entry: string): string {
  const authorityStart = SCHEME.exec(entry)?.[0].length ?? 0;
  const at = entry.lastIndexOf("@");
  const colon = entry.indexOf(":", authorityStart);
  if (at < authorityStart || colon < 0 || colon > at) return entry;
  return `${entry.slice(0, colon)}:***${entry.slice(at)}`;
}

/** Whether ioredis could read a host: a Unix socket path, or a URL with or without its scheme. */
function parses(host: string): boolean {
  const trimmed = host.trim();
  if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return true;
  try {
    new URL(SCHEME.test(trimmed) && !trimmed.startsWith("//") ? trimmed : `redis://${trimmed.replace(/^\/\//, "")}`);
    return trimmed.length > 0;
  } catch {
    return false;
  }
}

/**
 * Redacts the passwords from a Redis URL, or a comma list of them (Sentinel or cluster seeds), for
 * logs and messages: each URL's userinfo password, percent-encoded or not, with or without a
 * scheme, and every secret-named query parameter. A list is cut only before a scheme, so a comma
 * inside a password never splits it. A value that does not parse is not echoed at all (it may be a
 * mistyped secret).
 */
export function redactRedisUrl(url: string): string {
  const redacted = redactQuery(url)
    .split(/,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i)
    .map(redactUserinfo)
    .join(",");
  return redacted.split(",").every(parses) ? redacted : UNPARSEABLE;
}
