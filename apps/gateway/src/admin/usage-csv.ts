import type { UsageReport } from "@chorus/platform/usage";

const FIGURES = [
  "completed",
  "error",
  "cancelled",
  "promptTokens",
  "cachedPromptTokens",
  "completionTokens",
  "characters",
  "audioSeconds",
] as const;

/** A CSV cell: quoted when it holds a comma, a quote or a line break (RFC 4180); a leading =+-@ is defused. */
function cell(value: string | number): string {
  const text = String(value);
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Reports as CSV for billing: a header, then a row per key and bucket (key, day or model, then the figures). */
export function usageCsv(reports: UsageReport[], groupBy: UsageReport["groupBy"]): string {
  const lines = [["key", groupBy, ...FIGURES].join(",")];
  for (const report of reports) {
    for (const bucket of report.buckets) {
      const { requests, ...amounts } = bucket;
      const figures = FIGURES.map((name) =>
        name === "completed" || name === "error" || name === "cancelled" ? requests[name] : amounts[name],
      );
      const where = "day" in bucket ? bucket.day : bucket.model;
      lines.push([report.keyId, where, ...figures].map(cell).join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
