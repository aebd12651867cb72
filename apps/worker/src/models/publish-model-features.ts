import { MODEL_IDS, type EngineFeatures, type ModelId } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { ModelFeatures } from "@chorus/platform/scheduler";
import type { ServedModel } from "./model-registry.js";

const NOTHING_EXTRA: EngineFeatures = { sampling: [], responseFormats: [] };

/**
 * Tells the gateways what each model's engine honours, so they refuse (400) at admission what it
 * cannot do. Not fatal: without it the worker still refuses such a job itself.
 */
export async function publishModelFeatures(
  store: ModelFeatures,
  modelFor: (model: ModelId) => ServedModel,
  logger: Logger,
): Promise<void> {
  const features = Object.fromEntries(
    MODEL_IDS.map((id) => {
      const { engine, character } = modelFor(id);
      return [id, { ...(engine.features ?? NOTHING_EXTRA), defaultMaxTokens: character.sampling.max_tokens }];
    }),
  );
  await store.publish(features).catch((error: unknown) => {
    logger.warn("could not publish the models' engine features", { error: String(error) });
  });
}
