// Every call the page makes to the API, in the shape of the SDK (@chorus/client): the one module
// to switch once the SDK's browser build is served beside the page.

/** After a stream broke off before the final record, wait this long before following again. */
const RECONNECT_MS = 500;

/** An API error: the envelope's `code` and `message`, as the gateway sent them. */
export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }
}

async function toApiError(response) {
  const envelope = await response.json().catch(() => null);
  const error = envelope?.error;
  return error?.message ? new ApiError(error.code, error.message) : new ApiError(`HTTP_${response.status}`, `${response.status} ${response.statusText}`);
}

/** The records of a status stream (Server-Sent Events, each `data:` a whole status record). */
async function* statusEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffer += chunk.value;
    const events = buffer.split("\n\n");
    buffer = events.pop();
    for (const event of events) {
      const data = event.split("\n").flatMap((line) => (line.startsWith("data:") ? [line.slice(5).trimStart()] : []));
      if (data.length > 0) yield JSON.parse(data.join("\n"));
    }
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** A client for this gateway (the page's own origin) with `apiKey`. */
export function createApi(apiKey) {
  async function call(method, path, body, signal, accept = "application/json") {
    const headers = { Authorization: `Bearer ${apiKey}`, Accept: accept };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    if (!response.ok) throw await toApiError(response);
    return response;
  }
  const statusPath = (id) => `/api/v2/status/${encodeURIComponent(id)}`;

  return {
    async voices() {
      return (await (await call("GET", "/api/voices")).json()).voices;
    },
    /** The audio bytes of `request` ({ text, voice, speed, format }). */
    async speech(request) {
      return new Uint8Array(await (await call("POST", "/api/audio/full", request)).arrayBuffer());
    },
    async cancel(id) {
      return (await call("DELETE", statusPath(id))).json();
    },
    /** Submits, then streams the record until it is final; `onUpdate` sees every snapshot (with its `id`). */
    async generate(model, body, { onUpdate, signal } = {}) {
      const { id } = await (await call("POST", `/api/text/${encodeURIComponent(model)}`, body, signal)).json();
      for (;;) {
        for await (const snapshot of statusEvents(await call("GET", statusPath(id), undefined, signal, "text/event-stream"))) {
          const record = { id, ...snapshot };
          onUpdate?.(record);
          if (record.status !== "processing") return record;
        }
        await sleep(RECONNECT_MS, signal);
      }
    },
  };
}
