import type { Express } from "express";
import request from "supertest";

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
