import { randomUUID } from "node:crypto";
import { ApiError, type SpeechRequest } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";
import type { IdempotencyKeys } from "../services/idempotency.js";
import type { SpeechJobs, SpeechJob } from "../services/speech-jobs.service.js";
import { speechAsk } from "./budget-estimates.js";
import type { Budgets } from "./budgets.js";
import { speechAccess } from "./model-access.js";
import type { UsageBudgets } from "./usage-budgets.js";

/** A speech request as a door has read it. */
export interface SpeechRead {
  request: SpeechRequest;
  idempotencyKey: string | null;
  /** The audio goes out as it is made (else whole, once made). */
  stream: boolean;
}

export interface SpeechSubmission {
  key: ApiKeyRecord;
  /** Reads the body; called once the budget is spent. */
  read(): SpeechRead | Promise<SpeechRead>;
}

/** An admitted request: a replay of audio already made, or a job enqueued now. */
export type AdmittedSpeech =
  | { replay: true; requestId: string; read: SpeechRead; jobs: SpeechJobs }
  | {
      replay: false;
      requestId: string;
      read: SpeechRead;
      jobs: SpeechJobs;
      job: SpeechJob;
      /** The audio is kept for retries with the same Idempotency-Key. */
      keep: boolean;
      /** Frees the Idempotency-Key of a request whose delivery failed, so a retry does the work. */
      release: () => Promise<void>;
    };

export interface SpeechAdmissionDeps {
  /** Null where speech is switched off (503). */
  speech: SpeechJobs | null;
  idempotency: IdempotencyKeys;
  /** How long an Idempotency-Key of a speech request is remembered (the audio lives as long). */
  keepSeconds: number;
  /** The keys' usage budgets: a request's audio is held before it is queued. */
  usageBudgets: UsageBudgets;
}

const SPEECH_OFF = "text-to-speech is not enabled on this deployment";

/**
 * Admits a speech request in one order, whichever door it came through: scope (403) → budget (429)
 * → the body (400) → speech switched on (503) → idempotency (a retry with the same key and body
 * replays the first one's audio; 409) → the key's usage budgets (429 BUDGET_EXCEEDED) → the queue.
 */
export class SpeechAdmission {
  constructor(private readonly deps: SpeechAdmissionDeps) {}

  async admit(submission: SpeechSubmission, budgets: Budgets): Promise<AdmittedSpeech> {
    speechAccess(submission.key);
    await budgets.speech();
    const read = await submission.read();
    const { speech } = this.deps;
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", SPEECH_OFF);
    const claim = await this.claim(submission.key.id, read);
    if (!claim.fresh) return { replay: true, requestId: claim.requestId, read, jobs: speech };
    const { key } = submission;
    const budget = await this.deps.usageBudgets
      .hold(key, claim.requestId, speechAsk(read.request), (name, value) => budgets.tell(name, value))
      .catch(async (error: unknown) => {
        await claim.release();
        throw error;
      });
    const job = await speech
      .enqueue(key.id, read.request, claim.requestId, read.stream, budget)
      .catch(async (error: unknown) => {
        if (budget) await this.deps.usageBudgets.release(key, claim.requestId).catch(() => undefined);
        await claim.release();
        throw error;
      });
    const { requestId, keep, release } = claim;
    return { replay: false, requestId, read, jobs: speech, job, keep, release };
  }

  /**
   * With an Idempotency-Key, the first request synthesizes and its audio is kept until the key
   * expires; a retry with the same body gets those bytes. Without one, the request's own id.
   */
  private async claim(keyId: string, { request, idempotencyKey }: SpeechRead) {
    if (!idempotencyKey) return { requestId: randomUUID(), fresh: true, keep: false, release: () => Promise.resolve() };
    const scopedKey = `speech:${idempotencyKey}`;
    const claim = await this.deps.idempotency.claim(keyId, scopedKey, request, this.deps.keepSeconds);
    const release = () => this.deps.idempotency.release(keyId, scopedKey).catch(() => undefined);
    return { requestId: claim.requestId, fresh: claim.fresh, keep: true, release };
  }
}
