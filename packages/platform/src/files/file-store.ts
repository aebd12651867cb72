import type { FilePurpose } from "@chorus/contracts";

/** What is kept of a file beside its bytes. */
export interface StoredFile {
  id: string;
  filename: string;
  purpose: FilePurpose;
  bytes: number;
  /** ms since epoch. */
  createdAt: number;
  /** ms since epoch: after it the file is gone. */
  expiresAt: number;
}

export interface FileListQuery {
  purpose?: string;
  /** Files after this id in the listing's order. */
  after?: string;
  limit: number;
  order: "asc" | "desc";
}

/**
 * Where the files of the Files API (a batch's input and output) are kept, each owned by one API
 * key: only that key's calls find it. One interface so that a deployment can keep them elsewhere
 * (a directory, an S3-compatible store); Redis, bounded (FILE_LIMITS), is the one that runs.
 */
export interface FileStore {
  /** Stores a new file; false when the key already holds its cap of files (nothing stored). */
  put(owner: string, file: StoredFile, content: string): Promise<boolean>;
  /** The file's metadata, or null when the key holds no such file (unknown, expired, deleted, another key's). */
  get(owner: string, fileId: string): Promise<StoredFile | null>;
  /** The file's bytes, or null as for `get`. */
  content(owner: string, fileId: string): Promise<string | null>;
  /** The key's live files in creation order, a page of them, and whether more follow. */
  list(owner: string, query: FileListQuery): Promise<{ files: StoredFile[]; hasMore: boolean }>;
  /** False when the key holds no such file. */
  delete(owner: string, fileId: string): Promise<boolean>;
}
