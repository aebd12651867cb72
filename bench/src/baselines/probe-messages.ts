/** What the no-op worker tells the bench over IPC; `at` is `nowMs()` in the worker's process. */
export type ProbeMessage = { kind: "ready" } | { kind: "started" | "finished"; id: string; at: number };

export function isProbeMessage(value: unknown): value is ProbeMessage {
  return typeof value === "object" && value !== null && "kind" in value;
}
