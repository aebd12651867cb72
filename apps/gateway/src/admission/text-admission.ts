import { randomUUID } from "node:crypto";
import type { GenerationRequest, ModelId, SamplingParams } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";
import { TIER_TURN_WEIGHT, type ModelFeatures } from "@chorus/platform/scheduler";
import type { IdempotencyKeys } from "../services/idempotency.js";
import type { QueueDepth } from "../services/queue-depth.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import { refuseWhenQueueFull } from "./back-pressure.js";
import { textAsk } from "./budget-estimates.js";
import type { Budgets } from "./budgets.js";
import { refuseWhatModelLacks, type FeatureFieldNames } from "./engine-features.js";
import { checkFinishOptions, refuseWhenWebhooksBackedUp, type WebhookPolicy } from "./finish-options.js";
import type { LimitPolicy } from "./limit-policy.js";
import { textModelAccess } from "./model-access.js";
import type { StreamPlaces } from "./stream-places.js";
import type { UsageBudgets } from "./usage-budgets.js";

/** A text request as a door has read it from its body and headers. */
export interface TextRequest {
  request: GenerationRequest;
  /** The sampling fields the client sent (the worker fills the rest from the model's defaults). */
  clientSampling: Partial<SamplingParams>;
  idempotencyKey: string | null;
  /** The client reads the reply as it grows: the worker publishes its growth. */
  streamReply?: boolean;
  /** Where the body holds what the model's engine must honour (default: the native body's names). */
  featureFields?: FeatureFieldNames;
}

/** What a door hands admission: whose request, for which model, and how the client waits for it. */
export interface TextSubmission<Read extends TextRequest> {
  key: ApiKeyRecord;
  model: string;
  /** The client keeps its connection open for the answer (a wait, a stream): it holds one of the key's places. */
  holdsStream: boolean;
  /** Reads the body for the model admitted; called once the budget is spent, so a refused body costs a request too. */
  read(model: ModelId): Read | Promise<Read>;
}

/** An admitted request: its id (an earlier one's when `replayed`), and the place to give back when answered. */
export interface AdmittedText<Read extends TextRequest> {
  id: string;
  model: ModelId;
  read: Read;
  /** An Idempotency-Key named a request already accepted: nothing was queued. */
  replayed: boolean;
  /** When it was accepted (ms), or null for a replay (its record says). */
  acceptedAt: number | null;
  release: () => void;
}

export interface TextAdmissionDeps {
  limits: LimitPolicy;
  places: StreamPlaces;
  idempotency: IdempotencyKeys;
  queueDepth: QueueDepth;
  /** Text backlog at which submits get 503 (null: no bound). */
  maxQueueDepth: number | null;
  jobs: TextJobs;
  webhooks: WebhookPolicy;
  speechEnabled: boolean;
  /** What each model's engine honours, as the workers publish it. */
  modelFeatures: ModelFeatures;
  /** The keys' usage budgets per UTC day and month: a request's most is held before it is queued. */
  usageBudgets: UsageBudgets;
}

const nothingHeld = (): void => undefined;

/**
 * Admits a text request, the same way whichever door it came through, in one order: model access
 * (404, 403) → budget (429) → the body (400), what the model's engine can honour (400) and what it
 * asks for at its end → the key's stream place and in-flight cap (429) → idempotency (a replay
 * queues nothing; 409) → back-pressure (503) and the key's webhook backlog (429) → the key's usage
 * budgets (429 BUDGET_EXCEEDED) → the queue. Whatever a refused request took is given back.
 */
export class TextAdmission {
  constructor(private readonly deps: TextAdmissionDeps) {}

  async admit<Read extends TextRequest>(
    submission: TextSubmission<Read>,
    budgets: Budgets,
  ): Promise<AdmittedText<Read>> {
    const { key } = submission;
    const model = textModelAccess(key, submission.model);
    // Taken beside the budget (two independent round trips; a streamed reply's first token waits for
    // both), and given back should anything before the queue refuse the request.
    const place = submission.holdsStream ? this.deps.places.hold(key) : Promise.resolve(nothingHeld);
    let read: Read;
    try {
      await budgets.text(model);
      read = await submission.read(model);
      await refuseWhatModelLacks(this.deps.modelFeatures, model, read);
      checkFinishOptions(key, read.request, this.deps.webhooks, this.deps.speechEnabled);
      if (read.request.speak !== undefined) await budgets.speech();
    } catch (refusal) {
      (await place.catch(() => nothingHeld))();
      throw refusal;
    }
    const release = await place;
    try {
      const { id, acceptedAt } = await this.enqueueOnce(key, model, read, budgets);
      return { id, model, read, replayed: acceptedAt === null, acceptedAt, release };
    } catch (refusal) {
      release();
      throw refusal;
    }
  }

  /** Enqueues, unless an Idempotency-Key names a request already accepted: then that request's id, replayed. */
  private async enqueueOnce(
    key: ApiKeyRecord,
    model: ModelId,
    read: TextRequest,
    budgets: Budgets,
  ): Promise<{ id: string; acceptedAt: number | null }> {
    const { request, clientSampling, idempotencyKey, streamReply } = read;
    const job = {
      keyId: key.id,
      model,
      request,
      clientSampling,
      inFlightCap: this.deps.limits.inFlight(key),
      turnWeight: TIER_TURN_WEIGHT[key.priority],
    };
    const claimed = idempotencyKey
      ? await this.deps.idempotency.claim(key.id, idempotencyKey, { model, request, clientSampling })
      : null;
    if (claimed && !claimed.fresh) return { id: claimed.requestId, acceptedAt: null };
    try {
      refuseWhenQueueFull(this.deps.queueDepth, this.deps.maxQueueDepth);
      await refuseWhenWebhooksBackedUp(key, request, this.deps.webhooks, this.deps.limits.webhooks(key));
      const requestId = claimed?.requestId ?? randomUUID();
      const budget = await this.holdBudget(key, model, requestId, read, budgets);
      const submitted = this.deps.jobs.submit({
        ...job,
        requestId,
        ...(streamReply ? { streamReply } : {}),
        ...(budget ? { budget } : {}),
      });
      const { acceptedAt } = await submitted.catch(async (error: unknown) => {
        // Not queued (refused at the in-flight cap, or not stored): it will never settle, so give the hold back.
        if (budget) await this.deps.usageBudgets.release(key, requestId).catch(() => undefined);
        throw error;
      });
      return { id: requestId, acceptedAt };
    } catch (error) {
      // Refused or not stored: the key must not keep pointing at a request that does not exist. A
      // duplicate arriving between claim and release gets that id; an enqueue that reached Redis but
      // timed out here can be enqueued again by the retry.
      if (claimed && idempotencyKey) await this.deps.idempotency.release(key.id, idempotencyKey).catch(() => undefined);
      throw error;
    }
  }

  /** Holds the request's most (prompt estimate + the reply's most, and its speech) against the key's usage budgets. */
  private async holdBudget(key: ApiKeyRecord, model: ModelId, requestId: string, read: TextRequest, budgets: Budgets) {
    const features = await this.deps.modelFeatures.of(model);
    const ask = textAsk(read.request, read.clientSampling, features?.tokenBounds);
    return this.deps.usageBudgets.hold(key, requestId, ask, (name, value) => budgets.tell(name, value));
  }
}
