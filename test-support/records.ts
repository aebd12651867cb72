import type { StatusRecord } from "@chorus/contracts";
import type { Express } from "express";
import request from "supertest";
import { waitFor } from "./wait-for.js";

/**
 * The request's final record (`completed` or `error`), read as a client would: `Prefer: wait`, so
 * the gateway answers on the final write rather than on a poll's tick. Asked again while it is still
 * `processing` (a wait also ends at its limit, or when the gateway stops). A hang guard, not a timing.
 */
/** `app`: a gateway in the test's process, or the URL of one running as a process. */
export async function finalRecord(
  app: Express | string,
  key: string,
  id: string,
  timeoutMs = 120_000,
): Promise<StatusRecord> {
  return waitFor(
    `the final record of ${id}`,
    async () => {
      const res = await request(app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" }).set("Prefer", "wait=20");
      const record = res.body as StatusRecord;
      return res.status === 200 && record.status !== "processing" ? record : undefined;
    },
    { timeoutMs },
  );
}
