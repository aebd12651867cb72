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
}

export class ModelUnavailableError extends Error {}

const isRemote = (model: string) => /^(hf:|https?:\/\/)/.test(model);

/** Returns a local path to the model, downloading it once into `directory` when it is remote. */
export async function resolveModel(options: ResolveOptions): Promise<string> {
  // node-llama-cpp reads a relative path against `directory`; people mean their working directory.
  const model = isRemote(options.model) ? options.model : resolvePath(options.model);
  try {
    return await resolveModelFile(model, {
      directory: options.directory,
      download: "auto",
      cli: options.showProgress,
      ...(options.huggingFaceEndpoint ? { endpoints: { huggingFace: options.huggingFaceEndpoint } } : {}),
      ...(options.onProgress ? { onProgress: (s: { totalSize: number; downloadedSize: number }) => options.onProgress?.(s.downloadedSize, s.totalSize) } : {}),
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
