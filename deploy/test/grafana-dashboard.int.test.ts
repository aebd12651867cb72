import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { createMetrics } from "@chorus/platform/metrics";

// Static checks of the Grafana dashboard: every metric a panel queries is one the gateway or the
// workers export, so a renamed metric cannot leave a panel empty unnoticed.

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(new URL("../grafana/chorus-dashboard.json", import.meta.url), "utf8")) as {
  panels: Panel[];
};

/** The metric names a PromQL expression reads: what a function call takes, its `by (...)` labels left out. */
const metricsOf = (expr: string) =>
  [...expr.replace(/\bby \([^)]*\)/g, "").matchAll(/\(([a-z_]+)(?:\[|\{|\))/g)].map((m) => m[1]!);

describe("deploy/grafana/chorus-dashboard.json", () => {
  it("when its panels are read, then every metric they query is exported, and usage is shown by model, never by key", async () => {
    const exported = [await createMetrics("gateway").render(), await createMetrics("worker").render()].join("\n");
    const names = new Set([...exported.matchAll(/^# TYPE ([a-z_]+) /gm)].map((m) => m[1]!));
    const queried = dashboard.panels.flatMap((panel) => (panel.targets ?? []).flatMap((t) => metricsOf(t.expr)));
    expect(queried).toEqual(expect.arrayContaining(["usage_tokens_total", "usage_audio_seconds_total"]));
    expect(queried.filter((name) => !names.has(name))).toEqual([]);
    const usage = dashboard.panels.filter((panel) => panel.title.startsWith("Usage:"));
    expect(usage.map((panel) => panel.targets?.[0]?.expr)).toEqual([
      expect.stringContaining("sum by (model, kind)"),
      expect.stringContaining("sum by (model)"),
    ]);
  });
});
