import type { StatusRecord, SubmitResponse } from "@chorus/contracts";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { nowMs, sleep } from "../metrics/clock.js";
import type { BenchStack } from "../stack/bench-stack.js";
import type { EngineProcess } from "../stack/engine-process.js";
import { httpJson } from "../stack/net.js";

/** How often the bench polls a job's status: the end-to-end figure includes up to one interval. */
export const POLL_INTERVAL_MS = 20;

const PROMPT = "Tell me a long story about a brave cat who goes on an adventure.";

/** The request body of every generation job, through the gateway and to the direct baseline alike. */
export const generationBody = (maxTokens: number) => ({
  messages: [{ role: "You", content: PROMPT, index: 0 }],
  samplingParams: { max_tokens: maxTokens },
});

export interface GenerationJob {
  tokens: number;
  /** Submit sent → first poll showing `completed` (direct: the generate() call), seconds. */
  endToEndS: number;
  /** The record's processingTime (direct: the generate() call), seconds. */
  workerS: number;
}

/** One job through the whole system: POST /api/text/default, then GET /api/v2/status/{id} until completed. */
export async function generateThroughSystem(
  stack: BenchStack,
  body: unknown,
  timeoutMs = 120_000,
): Promise<GenerationJob> {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  const sentAt = nowMs();
  const submitted = await httpJson("POST", `${stack.gateway.url}/api/text/default`, auth, body);
  const id = (submitted.body as Partial<SubmitResponse>).id;
  if (submitted.status !== 200 || typeof id !== "string")
    throw new Error(`submit failed: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const polled = await httpJson("GET", `${stack.gateway.url}/api/v2/status/${id}`, auth);
    const record = polled.body as Partial<StatusRecord>;
    if (record.status === "completed")
      return {
        tokens: record.tokens ?? Number.NaN,
        endToEndS: (nowMs() - sentAt) / 1000,
        workerS: record.processingTime ?? Number.NaN,
      };
    if (polled.status !== 200 || record.status === "error")
      throw new Error(`job ${id} failed: ${polled.status} ${JSON.stringify(polled.body)}`);
    if (Date.now() > deadline) throw new Error(`job ${id} did not complete within ${timeoutMs} ms`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/** The same request to the engine alone (baselines/llama-direct.process). */
export async function generateDirectly(
  engine: EngineProcess<GenerationCall, GenerationTiming>,
  body: unknown,
): Promise<GenerationJob> {
  const timing = await engine.call({ body });
  return { tokens: timing.tokens, endToEndS: timing.ms / 1000, workerS: timing.ms / 1000 };
}

/** One unrecorded job per side, then `count` each in alternating order (S B, B S, ...). */
export async function alternate(count: number, sides: Record<"subject" | "baseline", () => Promise<GenerationJob>>) {
  await sides.subject();
  await sides.baseline();
  const jobs = { subject: [] as GenerationJob[], baseline: [] as GenerationJob[] };
  for (let i = 0; i < count; i++) {
    const order = i % 2 === 0 ? (["subject", "baseline"] as const) : (["baseline", "subject"] as const);
    for (const which of order) jobs[which].push(await sides[which]());
  }
  return jobs;
}
