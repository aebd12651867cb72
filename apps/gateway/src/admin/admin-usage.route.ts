import { ApiError, validateAdminUsageQuery } from "@chorus/contracts";
import type { ApiKeyStore } from "@chorus/platform/api-keys";
import type { UsageReader } from "@chorus/platform/usage";
import type { IRouter, RequestHandler } from "express";
import { usageCsv } from "./usage-csv.js";

export interface AdminUsageDeps {
  apiKeys: ApiKeyStore;
  usageReader: UsageReader;
}

/** The ids of the keys a report covers: `key` alone (404 when unknown), else every key, revoked ones too. */
async function keyIds(apiKeys: ApiKeyStore, key: string | undefined): Promise<string[]> {
  if (key === undefined) return (await apiKeys.list()).map((record) => record.id);
  if (!(await apiKeys.get(key))) throw new ApiError("NOT_FOUND", `no API key with id '${key.slice(0, 64)}'`);
  return [key];
}

/**
 * GET /admin/usage: what every key's finished jobs used (or one key's, `key`), by UTC day or by
 * model; as CSV for billing when asked with `Accept: text/csv`.
 */
export function addAdminUsageRoute(router: IRouter, deps: AdminUsageDeps, authenticate: RequestHandler): void {
  router.get("/admin/usage", authenticate, async (req, res) => {
    const { key, ...query } = validateAdminUsageQuery(req.query);
    const ids = await keyIds(deps.apiKeys, key);
    const reports = await Promise.all(ids.map((id) => deps.usageReader.report(id, query)));
    res.setHeader("Cache-Control", "no-store");
    if (req.accepts(["application/json", "text/csv"]) === "text/csv") {
      res.setHeader("Content-Disposition", `attachment; filename="usage-${query.from}-${query.to}.csv"`);
      res.type("text/csv").send(usageCsv(reports, query.groupBy));
      return;
    }
    res.json({ from: query.from, to: query.to, groupBy: query.groupBy, keys: reports });
  });
}
