import { MAX_WEBHOOK_SECRET_OVERLAP_SECONDS, validateWebhookSecretRotation } from "@chorus/contracts";
import type { ApiKeyStore } from "@chorus/platform/api-keys";

/** A usage error of the keys command (exit 2, its message). */
export class UsageError extends Error {}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90s`, `30m`, `1h`, `2d` or plain seconds, as seconds. */
export function parseOverlap(value: string | undefined): number {
  if (value === undefined) return 0;
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) throw new UsageError(`bad --overlap '${value}'; expected seconds or a number with s, m, h or d (1h)`);
  const seconds = Number(match[1]) * (UNITS[match[2] || "s"] ?? 1);
  if (seconds > MAX_WEBHOOK_SECRET_OVERLAP_SECONDS)
    throw new UsageError(`--overlap is at most ${MAX_WEBHOOK_SECRET_OVERLAP_SECONDS / 86400}d`);
  return seconds;
}

/** `a.example.com,*.b.example.com`; `*`: any host (the key's list dropped); '': no host at all. */
export function parseWebhookHosts(value: string): string[] | null {
  if (value.trim() === "*") return null;
  return value
    .split(",")
    .map((host) => host.trim())
    .filter(Boolean);
}

/** `keys rotate-webhook-secret ID [--overlap 1h]`: the new secret on stdout (its only showing), the rest on stderr. */
export async function rotateWebhookSecret(store: ApiKeyStore, id: string, overlap: string | undefined): Promise<void> {
  const { overlapSeconds } = validateWebhookSecretRotation({ overlapSeconds: parseOverlap(overlap) });
  const rotated = await store.rotateWebhookSecret(id, overlapSeconds * 1000);
  process.stdout.write(`${rotated.webhookSecret}\n`);
  process.stderr.write(
    rotated.previousUntil === null
      ? `new webhook signing secret for ${id}; the one it replaced no longer signs\n`
      : `new webhook signing secret for ${id}; the one it replaced signs beside it until ${new Date(rotated.previousUntil).toISOString()}\n`,
  );
}
