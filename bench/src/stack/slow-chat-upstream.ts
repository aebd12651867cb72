import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { nowMs } from "../metrics/clock.js";

/**
 * An OpenAI-compatible chat server that streams one word every `tokenMs`, for the take-over rows:
 * its jobs run as long as asked, on no CPU, so a worker can be killed while it holds them. It
 * tells, per job (the first `mark-<id>` word in the request), when each call for it began and
 * how many of its calls are open at once: a killed worker's call ends when its socket closes.
 */
export interface SlowChatUpstream {
  url: string;
  /** When each call for `marker` began (nowMs), in order. */
  calls(marker: string): number[];
  /** The most calls for one job that were ever open at the same time. */
  mostAtOnce(): number;
  /** Calls open now, over all jobs. */
  open(): number;
  stop(): Promise<void>;
}

/** What a job's conversation carries so that the upstream can tell its calls apart. */
export const jobMarker = (id: string) => `mark-${id}`;

async function readBody(req: IncomingMessage): Promise<{ marker: string; maxTokens: number }> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  const body = JSON.parse(text || "{}") as { max_tokens?: number };
  return { marker: /mark-[A-Za-z0-9]+/.exec(text)?.[0] ?? "", maxTokens: body.max_tokens ?? 16 };
}

const event = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", model: "slow", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

async function stream(res: ServerResponse, tokens: number, tokenMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(event({ role: "assistant", content: "" }, null));
  for (let i = 0; i < tokens && !res.destroyed; i++) {
    await new Promise((resolve) => setTimeout(resolve, tokenMs));
    res.write(event({ content: i === 0 ? "word" : " word" }, null));
  }
  if (res.destroyed) return;
  res.write(event({}, "length"));
  res.end("data: [DONE]\n\n");
}

export async function startSlowChatUpstream(tokenMs: number): Promise<SlowChatUpstream> {
  const calls = new Map<string, number[]>();
  const openByJob = new Map<string, number>();
  let mostAtOnce = 0;
  let open = 0;
  const server = createServer((req, res) => {
    void readBody(req).then(async ({ marker, maxTokens }) => {
      calls.set(marker, [...(calls.get(marker) ?? []), nowMs()]);
      const now = (openByJob.get(marker) ?? 0) + 1;
      openByJob.set(marker, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      open++;
      res.once("close", () => {
        openByJob.set(marker, (openByJob.get(marker) ?? 1) - 1);
        open--;
      });
      await stream(res, maxTokens, tokenMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls: (marker) => calls.get(marker) ?? [],
    mostAtOnce: () => mostAtOnce,
    open: () => open,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
