import { FINAL_BATCH_STATUSES } from "@chorus/contracts";
import type { Express } from "express";
import type OpenAI from "openai";
import request from "supertest";
import { waitFor } from "./wait-for.js";

/** Whether a batch with this status has ended (contracts' final statuses). */
export const isFinalBatch = (status: string) => (FINAL_BATCH_STATUSES as readonly string[]).includes(status);

/** A batch's output or error file as its parsed lines (none when the batch has no such file). */
export async function batchFileLines<Line>(client: OpenAI, fileId: string | null | undefined): Promise<Line[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

/** Lines as a JSONL file's text. */
export const jsonl = (lines: string[]) => lines.join("\n") + "\n";

/** Uploads `lines` and creates a chat-completions batch of them over plain HTTP: the create's answer. */
export async function createBatchOverHttp(app: Express, key: string, lines: string[]) {
  const upload = await request(app)
    .post("/v1/files")
    .auth(key, { type: "bearer" })
    .field("purpose", "batch")
    .attach("file", Buffer.from(jsonl(lines)), "batch.jsonl");
  return request(app)
    .post("/v1/batches")
    .auth(key, { type: "bearer" })
    .send({
      input_file_id: (upload.body as { id: string }).id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
}

/** Polls a batch over HTTP until it is `completed`: its body then (`waitFor`'s error past `timeoutMs`). */
export function batchCompleted(app: Express, key: string, batchId: string, timeoutMs: number) {
  return waitFor(
    "the batch completed",
    async () => {
      const res = await request(app).get(`/v1/batches/${batchId}`).auth(key, { type: "bearer" });
      const batch = res.body as { status: string; request_counts: object };
      return batch.status === "completed" ? batch : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}
