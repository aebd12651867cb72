import { randomUUID } from "node:crypto";
import { JOB_NAMES, type GenerateTextJob, type GenerationRequest, type ModelId } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform";
import type { Queue } from "bullmq";

/** Accepting a generation: the status record first (so a worker never finds it missing), then the job. */
export class TextSubmissions {
  constructor(
    private readonly statuses: StatusStore,
    private readonly queue: Queue<GenerateTextJob>,
  ) {}

  async submit(keyId: string, model: ModelId, request: GenerationRequest): Promise<string> {
    const requestId = randomUUID();
    await this.statuses.create(requestId, keyId, model);
    const job: GenerateTextJob = { requestId, keyId, model, request, acceptedAt: Date.now() };
    await this.queue.add(JOB_NAMES.generateText, job, { jobId: requestId });
    return requestId;
  }
}
