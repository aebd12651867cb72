// @ts-check
// OpenAI's Files and Batch API (/v1) as the Batches view calls it: fetch with the key in the
// Authorization header, never in a URL. The SDK, @chorus/client, speaks the native API only.

/**
 * @typedef {{ line?: number, param?: string | null, message: string }} LineError One bad line of a batch's input.
 * @typedef {{ total: number, completed: number, failed: number }} RequestCounts
 * @typedef {{ id: string, status: string, created_at: number, output_file_id: string | null,
 *   error_file_id: string | null, request_counts: RequestCounts, errors: { data: LineError[] } | null }} Batch
 *   OpenAI's batch object, the fields the view shows.
 */

/** States a batch never leaves: polling stops once every batch is in one. */
export const FINAL_STATUSES = ["completed", "failed", "expired", "cancelled"];

/** @param {Batch} batch */
export const isFinal = (batch) => FINAL_STATUSES.includes(batch.status);

/** An answer of 400 or above: OpenAI's error envelope read into what the page shows. */
export class ApiRefusal extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {LineError[]} lines Every bad line of a refused input file (an extension of the envelope: `error.errors`).
   * @param {string | null} retryAfter The Retry-After header of a 429, in seconds.
   */
  constructor(status, message, lines, retryAfter) {
    super(message);
    this.status = status;
    this.lines = lines;
    this.retryAfter = retryAfter;
  }
}

/**
 * The refusal `res` carries. An answer that is not the envelope (a proxy's page) still says its status.
 * @param {Response} res
 */
async function refusalOf(res) {
  /** @type {{ error?: { message?: string, errors?: LineError[] }, message?: string, errors?: LineError[] }} */
  let body = {};
  try {
    body = await res.json();
  } catch {
    // Not JSON: the status alone says what happened.
  }
  const message = body.error?.message ?? body.message ?? `HTTP ${res.status}`;
  const lines = body.error?.errors ?? body.errors ?? [];
  return new ApiRefusal(res.status, message, Array.isArray(lines) ? lines : [], res.headers.get("Retry-After"));
}

export class BatchApi {
  /** @param {string} apiKey */
  constructor(apiKey) {
    this.apiKey = apiKey;
  }

  /**
   * @param {string} path Under /v1.
   * @param {RequestInit} [init]
   */
  async call(path, init = {}) {
    const res = await fetch(`/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${this.apiKey}`, ...init.headers },
    });
    if (!res.ok) throw await refusalOf(res);
    return res;
  }

  /**
   * @param {string} path
   * @param {RequestInit} [init]
   */
  async json(path, init) {
    return (await this.call(path, init)).json();
  }

  /**
   * `POST /v1/files`, purpose batch: `file` is what the user chose or the lines pasted.
   * @param {Blob} file
   * @param {string} filename
   * @returns {Promise<{ id: string }>}
   */
  upload(file, filename) {
    const form = new FormData();
    form.append("purpose", "batch");
    form.append("file", file, filename);
    return this.json("/files", { method: "POST", body: form });
  }

  /**
   * `POST /v1/batches` of the uploaded file's chat completions.
   * @param {string} inputFileId
   * @returns {Promise<Batch>}
   */
  create(inputFileId) {
    return this.json("/batches", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        input_file_id: inputFileId,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
        metadata: { source: "playground" },
      }),
    });
  }

  /** @returns {Promise<Batch[]>} The key's latest batches, newest first. */
  async list() {
    return (await this.json("/batches?limit=20")).data;
  }

  /**
   * @param {string} id
   * @returns {Promise<Batch>}
   */
  get(id) {
    return this.json(`/batches/${encodeURIComponent(id)}`);
  }

  /**
   * @param {string} id
   * @returns {Promise<Batch>}
   */
  cancel(id) {
    return this.json(`/batches/${encodeURIComponent(id)}/cancel`, { method: "POST" });
  }

  /**
   * A file's bytes (`GET /v1/files/{id}/content`), to hand to the user as a Blob URL.
   * @param {string} fileId
   */
  async content(fileId) {
    return (await this.call(`/files/${encodeURIComponent(fileId)}/content`)).blob();
  }
}
