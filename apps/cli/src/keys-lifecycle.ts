import { validateKeyRotation } from "@chorus/contracts";
import type { ApiKeyStore, ListedApiKey } from "@chorus/platform/api-keys";
import { parseOverlap, UsageError } from "./keys-webhooks.js";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * `--expires`: a duration from now (`90s`, `30m`, `12h`, `30d`) or an ISO 8601 date-time (a date
 * alone is its midnight UTC), as ISO; `never` (update only): null. The store refuses a past one.
 */
export function parseExpiry(value: string, allowNever: boolean, now = Date.now()): string | null {
  const text = value.trim();
  if (allowNever && text === "never") return null;
  const duration = /^(\d+)([smhd])$/.exec(text);
  if (duration) return new Date(now + Number(duration[1]) * (UNITS[duration[2]!] ?? 1) * 1000).toISOString();
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms))
    throw new UsageError(
      `bad --expires '${value}'; expected a duration (30d, 12h, 90m) or an ISO date-time (2027-01-31T00:00:00Z)` +
        (allowNever ? " or never" : ""),
    );
  return new Date(ms).toISOString();
}

/** `keys rotate ID [--overlap 1h]`: the new secret on stdout (its only showing), the rest on stderr. */
export async function rotateKey(store: ApiKeyStore, id: string, overlap: string | undefined): Promise<void> {
  const { overlapSeconds } = validateKeyRotation({ overlapSeconds: parseOverlap(overlap) });
  const rotated = await store.rotate(id, overlapSeconds * 1000);
  process.stdout.write(`${rotated.secret}\n`);
  process.stderr.write(
    rotated.previousValidUntil === null
      ? `new secret for ${id}; the one it replaced no longer works (gateways drop it within KEY_CACHE_TTL_MS)\n`
      : `new secret for ${id}; the one it replaced works until ${new Date(rotated.previousValidUntil).toISOString()}\n`,
  );
}

/** `keys list`: one line per key under column headers (new ones last, for scripts); `-`: no such time. */
export function listLines(listed: ListedApiKey[], now = Date.now()): string {
  const state = (k: ListedApiKey) =>
    k.revoked ? "revoked" : k.expiresAt !== null && Date.parse(k.expiresAt) <= now ? "expired" : "active";
  const rows = listed.map((k) =>
    [
      k.id,
      k.name,
      k.scopes.join(","),
      JSON.stringify(k.limits),
      k.createdAt,
      state(k),
      k.expiresAt ?? "-",
      k.lastUsedAt ?? "-",
      k.priority,
    ].join("\t"),
  );
  return ["ID\tNAME\tSCOPES\tLIMITS\tCREATED\tSTATE\tEXPIRES\tLAST USED\tPRIORITY", ...rows]
    .map((line) => `${line}\n`)
    .join("");
}
