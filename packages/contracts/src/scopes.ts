import { MODEL_IDS, type ModelId } from "./models.js";

/**
 * API-key scopes: `*` (everything), `text:*` (every text model), `text:<model>` (one model),
 * `tts` (speech). Status polling needs no scope: a key can only ever see its own jobs.
 */
export const SCOPE_ALL = "*";
export const KNOWN_SCOPES: readonly string[] = [SCOPE_ALL, "text:*", "tts", ...MODEL_IDS.map((m) => `text:${m}`)];

export type Operation = { kind: "text"; model: ModelId } | { kind: "tts" };

export function isKnownScope(scope: string): boolean {
  return KNOWN_SCOPES.includes(scope);
}

export function scopeFor(operation: Operation): string {
  return operation.kind === "text" ? `text:${operation.model}` : "tts";
}

export function grants(scopes: readonly string[], operation: Operation): boolean {
  if (scopes.includes(SCOPE_ALL)) return true;
  if (operation.kind === "text" && scopes.includes("text:*")) return true;
  return scopes.includes(scopeFor(operation));
}
