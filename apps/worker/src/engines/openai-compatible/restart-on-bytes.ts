/**
 * Wraps `fetch` so that `onBytes` runs when the response headers arrive and again for every piece
 * of the body, before the `openai` client parses it: an idle timer restarted here sees every byte,
 * SSE comments (`: keep-alive`) and half events included, which the parsed chunks would hide.
 */
export function restartOnBytes(baseFetch: typeof fetch, onBytes: () => void): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    onBytes();
    if (response.body === null) return response;
    const watched = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onBytes();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
