import { resolve as resolvePath } from "node:path";
import { resolveModelFile } from "node-llama-cpp";

/** A small real instruct model (~400 MB, Apache-2.0) used when LLM_MODEL is not set. */
export const DEFAULT_MODEL_URI = "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf";

export interface ResolveOptions {
  /** A path to a .gguf file, an `hf:user/repo/file.gguf` URI or an https URL. */
  model: string;
  /** Where downloads are kept (the model cache). */
  directory: string;
  /** Overrides the Hugging Face endpoint (also read from HF_ENDPOINT / MODEL_ENDPOINT by node-llama-cpp). */
  huggingFaceEndpoint?: string;
  /** Show node-llama-cpp's progress bar on the terminal. */
  showProgress: boolean;
  onProgress?: (downloadedBytes: number, totalBytes: number) => void;
  signal?: AbortSignal;
  /** How long the model host may take to answer at all before it counts as unreachable (default 5 s). */
  reachableWithinMs?: number;
}

export class ModelUnavailableError extends Error {}

const isRemote = (model: string) => /^(hf:|https?:\/\/)/.test(model);

/**
 * The host a download starts at: the URL's own, or for an hf: URI the Hugging Face endpoint chosen
 * as node-llama-cpp chooses it (the option, then MODEL_ENDPOINT, then HF_ENDPOINT: it reads them
 * from the environment itself, so this has to as well).
 */
function modelHost(options: ResolveOptions): string {
  if (!options.model.startsWith("hf:")) return new URL(options.model).origin;
  return (
    options.huggingFaceEndpoint || process.env.MODEL_ENDPOINT || process.env.HF_ENDPOINT || "https://huggingface.co/"
  );
}

/**
 * Throws at once when the model host does not answer at all. Without this, node-llama-cpp retries
 * an unreachable host for about 12 minutes ("Gathering information") before it gives up, while
 * `npm start` waits. Any HTTP answer counts: what the host thinks of the file is the download's business.
 */
async function assertReachable(options: ResolveOptions): Promise<void> {
  const host = modelHost(options);
  const timeoutMs = options.reachableWithinMs ?? 5000;
  try {
    const answer = await fetch(host, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await answer.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (cause?.code ?? cause?.message ?? String(error));
    throw new ModelUnavailableError(
      `Could not download the model ${options.model}: its host ${host} cannot be reached (${reason}); no internet, or a mirror that is down? ` +
        `Set LLM_MODEL to the path of a local .gguf file, or make the host reachable (HF_ENDPOINT for a Hugging Face mirror).`,
    );
  }
}

/** The model's file when an earlier download left it in `directory`, without asking the network. */
async function cachedModel(model: string, directory: string): Promise<string | undefined> {
  return resolveModelFile(model, { directory, download: false, cli: false }).catch(() => undefined);
}

/** Returns a local path to the model, downloading it once into `directory` when it is remote. */
export async function resolveModel(options: ResolveOptions): Promise<string> {
  // node-llama-cpp reads a relative path against `directory`; people mean their working directory.
  const model = isRemote(options.model) ? options.model : resolvePath(options.model);
  if (isRemote(model)) {
    const cached = await cachedModel(model, options.directory);
    if (cached) return cached;
    await assertReachable(options);
  }
  try {
    return await resolveModelFile(model, {
      directory: options.directory,
      download: "auto",
      cli: options.showProgress,
      ...(options.huggingFaceEndpoint ? { endpoints: { huggingFace: options.huggingFaceEndpoint } } : {}),
      ...(options.onProgress
        ? {
            onProgress: (s: { totalSize: number; downloadedSize: number }) =>
              options.onProgress?.(s.downloadedSize, s.totalSize),
          }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const advice = isRemote(options.model)
      ? `Could not download the model ${options.model} into ${options.directory} (${reason}). ` +
        "Set LLM_MODEL to the path of a local .gguf file, or make the download reachable " +
        "(HF_ENDPOINT for a mirror, HF_TOKEN for gated models)."
      : `The model file ${model} could not be used (${reason}). Set LLM_MODEL to an existing .gguf file or an hf: URI.`;
    throw new ModelUnavailableError(advice);
  }
}
