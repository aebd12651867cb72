import { MODEL_IDS, type EngineFeatures, type ModelId, type TokenBounds } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { ModelFeatures } from "@chorus/platform/scheduler";
import { buildChatTurns } from "../prompt/build-chat-turns.js";
import type { ServedModel } from "./model-registry.js";

const NOTHING_EXTRA: EngineFeatures = { sampling: [], responseFormats: [] };

/** A conversation of `count` empty messages, alternating from the client's. */
function emptyConversation(count: number) {
  const messages = Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? ("Bot" as const) : ("You" as const),
    content: "",
    index,
  }));
  return { messages, samplingParams: { max_tokens: 1, temperature: 1, top_p: 1 } };
}

/**
 * The model's token bounds, measured with its engine's tokenizer: the prompt of one empty message,
 * and what two more add (halved; one more for a tokenizer's word-start piece). Null when the engine
 * cannot count (the gateway then estimates).
 */
async function tokenBounds({ engine, character }: ServedModel): Promise<TokenBounds | null> {
  try {
    const [one, three] = await Promise.all(
      [1, 3].map((count) => engine.countPromptTokens(buildChatTurns(emptyConversation(count), character))),
    );
    return {
      defaultMaxTokens: character.sampling.max_tokens,
      contextTokens: engine.contextTokens,
      promptTokens: one as number,
      messageTokens: Math.ceil(((three as number) - (one as number)) / 2) + 1,
    };
  } catch {
    return null;
  }
}

/**
 * Tells the gateways what each model's engine honours, so they refuse (400) at admission what it
 * cannot do, and what bounds a request's tokens, so they hold a token budget's share. Not fatal:
 * without it the worker still refuses such a job itself, and the gateway estimates.
 */
export async function publishModelFeatures(
  store: ModelFeatures,
  modelFor: (model: ModelId) => ServedModel,
  logger: Logger,
): Promise<void> {
  const features = Object.fromEntries(
    await Promise.all(
      MODEL_IDS.map(async (id) => {
        const bounds = await tokenBounds(modelFor(id));
        return [id, { ...(modelFor(id).engine.features ?? NOTHING_EXTRA), ...(bounds && { tokenBounds: bounds }) }];
      }),
    ),
  ) as Record<ModelId, EngineFeatures>;
  await store.publish(features).catch((error: unknown) => {
    logger.warn("could not publish the models' engine features", { error: String(error) });
  });
}
