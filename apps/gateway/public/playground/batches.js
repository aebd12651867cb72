// @ts-check
// The Batches view: a JSON Lines file (chosen, pasted or made as a sample) uploaded and run as an
// OpenAI batch, the key's batches listed with their progress, Cancel, and their output and error
// files to download.
import { ApiRefusal, BatchApi, isFinal } from "./batches-api.js";
import { byId, expectElement, find } from "./dom.js";

/** @typedef {import("./batches-api.js").Batch} Batch */

/** How often active batches are read again while the view is shown. */
const POLL_MS = 1500;
/** A download's Blob URL outlives its click long enough for the browser to take the bytes. */
const BLOB_URL_LIFETIME_MS = 60_000;
const SAMPLE_PROMPTS = [
  "Say hello in one short sentence.",
  "Name three colours.",
  "What is two plus two?",
  "Give a one-line tip for a rainy day.",
];

/**
 * @typedef {{ apiKey: () => string, model: () => string, maxTokens: () => number }} Settings What the view reads
 * from the page's settings.
 */

/**
 * "40 s", "12 min", "9 h": a budget's Retry-After runs to the next UTC day or month.
 * @param {number} seconds
 */
function describeWait(seconds) {
  if (seconds < 120) return `${seconds} s`;
  return seconds < 7200 ? `${Math.ceil(seconds / 60)} min` : `${Math.ceil(seconds / 3600)} h`;
}

/** "HTTP 429: the message. Try again in 12 min." @param {unknown} error */
function describeError(error) {
  if (!(error instanceof ApiRefusal)) return error instanceof Error ? error.message : String(error);
  const wait = Number(error.retryAfter);
  const retry = error.status === 429 && wait > 0 ? ` Try again in ${describeWait(wait)}.` : "";
  return `HTTP ${error.status}: ${error.message}${retry}`;
}

/** @param {import("./batches-api.js").LineError} line */
const describeLine = ({ line, param, message }) =>
  [line === undefined ? "" : `Line ${line}`, param ? `(${param})` : "", message].filter(Boolean).join(" ");

/** @param {Batch} batch */
function describeCounts({ request_counts: { total, completed, failed } }) {
  return `${completed + failed} of ${total} done (${completed} completed, ${failed} failed)`;
}

/**
 * Hands `blob` to the user as a file named `filename`.
 * @param {Blob} blob
 * @param {string} filename
 */
function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href: url, download: filename });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), BLOB_URL_LIFETIME_MS);
}

/** One batch in the list: its status, progress and buttons, redrawn from each read of it. */
class BatchRow {
  /**
   * @param {Batch} batch
   * @param {{ onCancel: (id: string) => void, onDownload: (fileId: string, filename: string) => void }} actions
   */
  constructor(batch, { onCancel, onDownload }) {
    const template = byId("batch-template", HTMLTemplateElement);
    this.element = expectElement(
      template.content.firstElementChild?.cloneNode(true),
      HTMLLIElement,
      "#batch-template's batch",
    );
    this.batch = batch;
    const button = (/** @type {string} */ testId) => find(this.element, `[data-testid=${testId}]`, HTMLButtonElement);
    this.cancel = button("batch-cancel");
    this.output = button("batch-output");
    this.errorFile = button("batch-errors");
    this.cancel.addEventListener("click", () => onCancel(this.batch.id));
    this.output.addEventListener("click", () => {
      if (this.batch.output_file_id) onDownload(this.batch.output_file_id, `${this.batch.id}-output.jsonl`);
    });
    this.errorFile.addEventListener("click", () => {
      if (this.batch.error_file_id) onDownload(this.batch.error_file_id, `${this.batch.id}-errors.jsonl`);
    });
    this.update(batch);
  }

  /** @param {Batch} batch */
  update(batch) {
    this.batch = batch;
    const { total, completed, failed } = batch.request_counts;
    this.element.dataset.status = batch.status;
    this.element.setAttribute("aria-busy", String(!isFinal(batch)));
    find(this.element, ".batch-id", HTMLElement).textContent = batch.id;
    find(this.element, "[data-testid=batch-status]", HTMLElement).textContent = batch.status.replace("_", " ");
    const progress = find(this.element, "[data-testid=batch-progress]", HTMLProgressElement);
    progress.max = Math.max(total, 1);
    progress.value = completed + failed;
    progress.setAttribute("aria-label", `Progress of ${batch.id}`);
    find(this.element, "[data-testid=batch-counts]", HTMLElement).textContent = describeCounts(batch);
    this.cancel.hidden = isFinal(batch) || batch.status === "cancelling";
    this.cancel.setAttribute("aria-label", `Cancel ${batch.id}`);
    this.output.hidden = !batch.output_file_id;
    this.errorFile.hidden = !batch.error_file_id;
    const problems = find(this.element, ".batch-problems", HTMLUListElement);
    const lines = batch.errors?.data ?? [];
    problems.replaceChildren(
      ...lines.map((line) => Object.assign(document.createElement("li"), { textContent: describeLine(line) })),
    );
    problems.hidden = lines.length === 0;
  }
}

export class BatchesView {
  /** @param {Settings} settings */
  constructor(settings) {
    this.settings = settings;
    this.form = byId("batch-form", HTMLFormElement);
    this.file = byId("batch-file", HTMLInputElement);
    this.lines = byId("batch-lines", HTMLTextAreaElement);
    this.submit = find(this.form, "[type=submit]", HTMLButtonElement);
    this.error = byId("batch-error", HTMLDivElement);
    this.list = byId("batch-list", HTMLOListElement);
    this.empty = byId("batch-empty", HTMLParagraphElement);
    /** @type {Map<string, BatchRow>} */
    this.rows = new Map();
    this.shown = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    byId("batch-sample", HTMLButtonElement).addEventListener("click", () => this.makeSample());
    // One source at a time: a chosen file, or the lines in the box.
    this.file.addEventListener("change", () => {
      if (this.file.files?.length) this.lines.value = "";
    });
    this.lines.addEventListener("input", () => {
      this.file.value = "";
    });
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.run();
    });
    document.addEventListener("visibilitychange", () => (document.hidden ? this.stopPolling() : this.schedulePoll()));
  }

  api() {
    return new BatchApi(this.settings.apiKey());
  }

  /** The view is on screen: the key's batches are read and active ones followed. */
  show() {
    this.shown = true;
    void this.refresh();
  }

  /** Another key's batches are listed when the view is on screen; otherwise when it is shown. */
  keyChanged() {
    if (this.shown) void this.refresh();
  }

  hide() {
    this.shown = false;
    this.stopPolling();
  }

  /** A few chat lines for the model chosen in the settings, into the box. */
  makeSample() {
    const model = this.settings.model();
    const max_tokens = this.settings.maxTokens();
    this.lines.value = SAMPLE_PROMPTS.map((content, index) =>
      JSON.stringify({
        custom_id: `sample-${index + 1}`,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model, messages: [{ role: "user", content }], max_tokens },
      }),
    ).join("\n");
    this.file.value = "";
    this.lines.focus();
  }

  /**
   * @param {unknown} error
   */
  showError(error) {
    const lines = error instanceof ApiRefusal ? error.lines : [];
    const list = document.createElement("ul");
    list.replaceChildren(
      ...lines.map((line) => Object.assign(document.createElement("li"), { textContent: describeLine(line) })),
    );
    this.error.replaceChildren(
      Object.assign(document.createElement("p"), { textContent: describeError(error) }),
      ...(lines.length ? [list] : []),
    );
    this.error.hidden = false;
  }

  clearError() {
    this.error.hidden = true;
    this.error.replaceChildren();
  }

  /** Whether a key is there; the user is told to paste one otherwise. */
  hasKey() {
    if (this.settings.apiKey()) return true;
    this.showError(new Error("Paste an API key first."));
    return false;
  }

  /** Upload the file or the lines, create the batch, follow it. */
  async run() {
    if (!this.hasKey() || this.submit.disabled) return;
    const chosen = this.file.files?.[0];
    const text = this.lines.value.trim();
    if (!chosen && !text) return this.showError(new Error("Choose a .jsonl file, paste its lines or make a sample."));
    this.clearError();
    this.submit.disabled = true;
    try {
      const api = this.api();
      const file = chosen ?? new Blob([`${text}\n`], { type: "application/jsonl" });
      const { id } = await api.upload(file, chosen?.name ?? "playground.jsonl");
      this.put(await api.create(id), { first: true });
      this.schedulePoll();
    } catch (error) {
      this.showError(error);
    } finally {
      this.submit.disabled = false;
    }
  }

  /**
   * A batch into the list: its row redrawn, or a new row (at the top when `first`: the newest).
   * @param {Batch} batch
   * @param {{ first?: boolean }} [where]
   */
  put(batch, { first = false } = {}) {
    const row = this.rows.get(batch.id);
    if (row) return row.update(batch);
    const added = new BatchRow(batch, {
      onCancel: (id) => void this.cancel(id),
      onDownload: (fileId, filename) => void this.download(fileId, filename),
    });
    this.rows.set(batch.id, added);
    if (first) this.list.prepend(added.element);
    else this.list.append(added.element);
    this.empty.hidden = true;
  }

  /** The key's batches read again (a key changed, the view shown): the list starts over, empty without a key. */
  async refresh() {
    this.stopPolling();
    try {
      const batches = this.settings.apiKey() ? await this.api().list() : [];
      this.rows.clear();
      this.list.replaceChildren();
      for (const batch of batches) this.put(batch);
      this.empty.hidden = batches.length > 0;
      this.clearError();
      this.schedulePoll();
    } catch (error) {
      this.showError(error);
    }
  }

  /** @param {string} id */
  async cancel(id) {
    this.clearError();
    try {
      this.put(await this.api().cancel(id));
      this.schedulePoll();
    } catch (error) {
      this.showError(error);
    }
  }

  /**
   * @param {string} fileId
   * @param {string} filename
   */
  async download(fileId, filename) {
    this.clearError();
    try {
      saveBlob(await this.api().content(fileId), filename);
    } catch (error) {
      this.showError(error);
    }
  }

  /** Active batches are read again every POLL_MS while the view is on screen; none once all are final. */
  schedulePoll() {
    this.stopPolling();
    const active = [...this.rows.values()].some((row) => !isFinal(row.batch));
    if (this.shown && !document.hidden && active) this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  stopPolling() {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * One call a poll, whatever the number of active batches (each spends the key's status budget,
   * RATE_LIMIT_STATUS, 200 a minute by default): the one active batch itself, or the list when several are.
   */
  async poll() {
    const api = this.api();
    const active = [...this.rows.values()].filter((row) => !isFinal(row.batch));
    try {
      const [first] = active;
      const read = active.length === 1 && first ? [await api.get(first.batch.id)] : await api.list();
      // A list started over meanwhile (another key) keeps only its own batches.
      for (const batch of read) if (this.rows.has(batch.id)) this.put(batch);
    } catch (error) {
      this.showError(error);
    }
    this.schedulePoll();
  }
}
