import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Response } from "superagent";
import type { Completion } from "@chorus/platform/scheduler";

/** The fixture model is in the repository (fixtures/models, MIT: see its README). */
export const FIXTURE_MODEL = fileURLToPath(new URL("../fixtures/models/stories260K-chatml.gguf", import.meta.url));

/** A describe that skips, saying why, when the fixture model is missing: never a silent pass. */
export function describeWithModel(name: string, body: () => void): void {
  if (existsSync(FIXTURE_MODEL)) describe(name, body);
  else describe.skip(`${name} [SKIPPED: fixture model not found at ${FIXTURE_MODEL}]`, body);
}

export function defaultRequest(content = "Tell me a story about a brave cat.") {
  return { messages: [{ role: "You", content, index: 0 }] };
}

export function characterRequest(botName = "Morwenna", content = "Hello! Who are you?") {
  return {
    botName,
    messages: [
      {
        role: "You",
        content,
        index: 0,
        id: "m0",
        messageIndex: 0,
        chatId: "chat-1",
        userId: "user-1",
        createdAt: "2026-11-23T10:00:00Z",
      },
    ],
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A supertest parser that keeps the body as bytes, whatever its Content-Type (audio). */
export function bytesParser(res: Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on("data", (chunk: Buffer) => chunks.push(chunk));
  res.on("end", () => done(null, Buffer.concat(chunks)));
}

/** A completed generation's figures, for tests that finish a record by hand (`StatusStore.complete`). */
export const SAMPLE_COMPLETION: Completion = {
  reply: "Once upon a time.",
  tokens: 5,
  promptTokens: 12,
  cachedTokens: 0,
  processingTime: 0.5,
  droppedMessages: 0,
  finishReason: "stop",
  maxTokens: 150,
};
