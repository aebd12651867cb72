import { validateUsageQuery } from "@chorus/contracts";
import { ApiKeyError, type ApiKeyStore } from "@chorus/platform/api-keys";
import type { UsageFigures, UsageReader, UsageReport } from "@chorus/platform/usage";

export interface UsageOptions {
  from?: string | undefined;
  to?: string | undefined;
  by?: string | undefined;
  json?: boolean | undefined;
}

const HEADER = ["COMPLETED", "ERROR", "CANCELLED", "PROMPT", "CACHED", "COMPLETION", "CHARS", "AUDIO S"];

const cells = (f: UsageFigures) => [
  f.requests.completed,
  f.requests.error,
  f.requests.cancelled,
  f.promptTokens,
  f.cachedPromptTokens,
  f.completionTokens,
  f.characters,
  f.audioSeconds,
];

/** The report as tab-separated columns, a row per bucket, then the total. */
export function usageLines(report: UsageReport): string {
  const rows = report.buckets.map((b) => ["day" in b ? b.day : b.model, ...cells(b)].join("\t"));
  const lines = [
    [report.groupBy.toUpperCase(), ...HEADER].join("\t"),
    ...rows,
    ["TOTAL", ...cells(report.total)].join("\t"),
  ];
  return lines.map((line) => `${line}\n`).join("");
}

/**
 * `keys usage ID`: what the key's finished requests used over a range (default the last 30 days),
 * by day or by model; the same figures and checks as GET /api/v2/usage (a bad range: exit 2).
 */
export async function keyUsage(store: ApiKeyStore, reader: UsageReader, id: string, options: UsageOptions) {
  const query = validateUsageQuery({
    ...(options.from !== undefined && { from: options.from }),
    ...(options.to !== undefined && { to: options.to }),
    ...(options.by !== undefined && { groupBy: options.by }),
  });
  if (!(await store.get(id))) throw new ApiKeyError(`no API key with id '${id}'`);
  const report = await reader.report(id, query);
  process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : usageLines(report));
}
