import { createHash } from "node:crypto";
import type { GenerateTextJob, Message } from "@chorus/contracts";

/**
 * A conversation's prefixes, named by hashes: what a worker publishes of the prompts its engine holds
 * and what routing looks up. Each hash covers what shapes the prompt up to one message
 * boundary: the API key (a worker's cache serves a key only its own conversations, see
 * slot-pool.ts), the model (its character), the persona, bot name and instructions, then the
 * messages' roles and texts in order. Sampling and ids do not change the prompt, so they are left out. A hash
 * is chained from the one before it, so a conversation of n messages costs n small hashes.
 */

/** At most this many boundaries, the latest, are published or looked up: a long chat's next turn matches its end. */
export const MAX_PREFIXES = 32;

function hashOf(previous: string, part: unknown): string {
  return createHash("sha256").update(previous).update(JSON.stringify(part)).digest("base64url").slice(0, 22);
}

type Prompted = Pick<GenerateTextJob, "keyId" | "model" | "request">;

function chain(job: Prompted, messages: readonly Message[]): string[] {
  const { persona, botName, instructions } = job.request;
  let hash = hashOf("", [job.keyId, job.model, persona ?? null, botName ?? null, instructions ?? null]);
  const hashes: string[] = [];
  for (const { role, content } of messages) {
    hash = hashOf(hash, [role, content]);
    hashes.push(hash);
  }
  return hashes.slice(-MAX_PREFIXES);
}

/** The hashes of the job's prompt at each message boundary, shortest prefix first. */
export function conversationPrefixes(job: Prompted): string[] {
  return chain(job, job.request.messages);
}

/**
 * The prefixes an engine holds once it has answered the job: the job's, then the one that ends with
 * the reply, which is what the conversation's next turn starts with.
 */
export function prefixesAfterReply(job: Prompted, reply: string): string[] {
  return chain(job, [...job.request.messages, { role: "Bot", content: reply }]);
}
