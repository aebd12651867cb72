import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { sharedPrefixLength } from "./slot-pool.js";

/** A slot's cache saved to a file (llama-server's slot save), kept for the key whose prompt it holds. */
interface SavedState {
  owner: string;
  tokens: readonly number[];
  file: string;
  bytes: number;
}

/** A slot as the states see it: its id on the server, and the prompt it holds. */
export interface StatefulSlot {
  readonly id: number;
  tokens: readonly number[];
}

/**
 * Prompts kept beyond the slots, per API key: when a job takes a slot from a conversation, that
 * conversation's cache is saved (POST /slots/{id}?action=save) and its key's next turn restores it
 * (action=restore) instead of reading it again. llama-server's own host cache (--cache-ram) cannot
 * be scoped: it restores whichever saved prompt matches best, another key's too, so it is off and
 * this takes its place. Only a state of the job's own key is ever restored. The oldest go past
 * `budgetBytes`.
 */
export class SlotStates {
  /** Oldest first. */
  private saved: SavedState[] = [];
  private bytes = 0;

  constructor(
    private readonly serverUrl: () => string,
    private readonly directory: string,
    private readonly budgetBytes: number,
  ) {}

  /** The saved state of `owner` with the longest common prefix with `prompt`, and that length. */
  best(owner: string, prompt: readonly number[]): { state: SavedState; common: number } | null {
    let found: { state: SavedState; common: number } | null = null;
    for (const state of this.saved) {
      if (state.owner !== owner) continue;
      const common = sharedPrefixLength(state.tokens, prompt);
      if (common > (found?.common ?? 0)) found = { state, common };
    }
    return found;
  }

  /** Keeps what the slot holds for `owner` (when there is room for it at all). */
  async save(slot: StatefulSlot, owner: string): Promise<void> {
    if (this.budgetBytes <= 0 || slot.tokens.length === 0) return;
    const file = `${randomUUID()}.bin`;
    const answer = await this.action(slot.id, "save", file);
    this.saved.push({ owner, tokens: slot.tokens, file, bytes: answer.n_written ?? 0 });
    this.bytes += answer.n_written ?? 0;
    while (this.bytes > this.budgetBytes && this.saved.length > 0)
      await this.drop(this.saved[0]!).catch(() => undefined);
  }

  /** Loads a saved state into the slot; it is then the slot's, no longer kept here. */
  async restore(slot: StatefulSlot, state: SavedState): Promise<void> {
    await this.drop(state, async () => {
      await this.action(slot.id, "restore", state.file);
      slot.tokens = state.tokens;
    });
  }

  /** Empties the slot: the next job reads its prompt from the start. */
  async erase(slot: StatefulSlot): Promise<void> {
    await this.action(slot.id, "erase");
    slot.tokens = [];
  }

  /** Forgets the state (after `before`, if given) and removes its file; once only, if two jobs chose it. */
  private async drop(state: SavedState, before?: () => Promise<void>): Promise<void> {
    const at = this.saved.indexOf(state);
    if (at < 0) throw new Error("that saved state was taken by another job");
    this.saved.splice(at, 1);
    this.bytes -= state.bytes;
    try {
      await before?.();
    } finally {
      await rm(join(this.directory, state.file), { force: true });
    }
  }

  private async action(slotId: number, action: string, filename?: string): Promise<{ n_written?: number }> {
    const response = await fetch(`${this.serverUrl()}/slots/${slotId}?action=${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(filename ? { filename } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`llama-server's slot ${action} answered ${response.status}: ${text}`);
    return JSON.parse(text) as { n_written?: number };
  }
}
