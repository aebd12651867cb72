/**
 * OpenAI's Files API as Chorus keeps files: for the Batch API only (`purpose: batch`), each file
 * owned by the API key that uploaded it, bounded so that Redis (where they are kept by default) can
 * hold every key's. The bounds are documented in docs/batches.md.
 */
import type { OpenAiList } from "./openai-shapes.js";

export const FILE_LIMITS = {
  /** Bytes of one file (OpenAI allows 200 MB for batches; a file is kept whole in Redis here). */
  maxBytes: 16 * 1024 * 1024,
  /** Lines of one batch file (OpenAI's own bound on requests per batch). */
  maxLines: 50_000,
  /** Files one API key holds at once (expired and deleted ones do not count). */
  maxFilesPerKey: 100,
  /** `expires_after.seconds`: OpenAI's bounds; a batch file expires after the longest by default. */
  expiresAfterSeconds: { min: 3600, max: 30 * 24 * 3600 },
  /** `limit` of a listing: OpenAI's bounds and default. */
  list: { min: 1, max: 10_000, default: 10_000 },
} as const;

/** The purposes kept here: a batch's input. (`batch_output` files are written by the service.) */
export const FILE_PURPOSES = ["batch"] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number] | "batch_output";

/** OpenAI's file object. */
export interface OpenAiFile {
  id: string;
  object: "file";
  bytes: number;
  /** Unix seconds. */
  created_at: number;
  /** Unix seconds. */
  expires_at: number;
  filename: string;
  purpose: FilePurpose;
  /** Deprecated by OpenAI, still read by older SDKs: always `processed` (a file is usable once stored). */
  status: "processed";
}

export type OpenAiFileList = OpenAiList<OpenAiFile>;

export interface OpenAiFileDeleted {
  id: string;
  object: "file";
  deleted: true;
}
