import { setTimeout as sleep } from "node:timers/promises";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";
import { ChatPrompt } from "./chat-prompt.js";
import { LlamaServerProcess, type LlamaServerSettings } from "./llama-server.process.js";
import { SlotMonitor } from "./llama-server.slot-monitor.js";
import { SlotStates } from "./llama-server.slot-states.js";
import { SlotPool, sharedPrefixLength, type Borrowed, type CacheScope, type CacheSlot } from "./slot-pool.js";
import { jobStopSequences } from "./stop-sequences.js";
import { LLAMA_SERVER_FEATURES, samplingFields } from "./llama-server.sampling.js";
import { RunGate } from "./run-gate.js";
import { sseJsonEvents, type StreamedCompletionEvent } from "./llama-server.stream.js";

/** Owns a slot whose preparation failed: no key is it, so the next job empties it (SlotPool's mustCut). */
const UNKNOWN_OWNER = "\u0000unknown";

/** Three token ids: one of them differs from any two tokens (cutTo). */
const FILLER_TOKENS = [1, 2, 3];
/** A cut reads one token: far longer means the server is stuck. */
const CUT_TIMEOUT_MS = 30_000;

/** LLM_CACHE_RAM_MB unset: what llama-server's own host cache would take. */
const DEFAULT_STATES_MIB = 8192;

/** How often running jobs' progress is read from the server (one request for every slot). */
const PROGRESS_POLL_MS = 100;

/** One of llama-server's slots, and the prompt it last read (what its cache holds, in front). */
class ServerSlot implements CacheSlot {
  tokens: readonly number[] = [];
  owner: string | null = null;
  /**
   * The text of the last task completed on it. With slots debug, /slots shows that text (another
   * request's reply) for a new task until the new task's text is not empty: never passed on.
   */
  lastReply = "";

  constructor(readonly id: number) {}

  cachedTokens(): readonly number[] {
    return this.tokens;
  }
}

/** The fields of llama-server's /completion answer read here (it is asked for no others). */
interface Completion {
  content?: string;
  tokens_predicted?: number;
  tokens_evaluated?: number;
  timings?: { cache_n?: number };
  /** `limit` when n_predict or the context ended the reply; `eos`, `word` when it ended by itself. */
  stop_type?: string;
}
const COMPLETION_FIELDS = ["content", "tokens_predicted", "tokens_evaluated", "timings", "stop_type"];

/** fetch's causes for a connection refused or cut: the server died or is not up again yet. */
const CONNECTION_LOST = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/** The server cannot be reached (it may be restarting after a crash): worth another try. */
class ServerUnreachable extends Error {}

/** The server answered with an error: the job's failure, not worth another try. */
class ServerAnswered extends Error {}

/** Tokens reported to the job so far: never more than maxTokens, never fewer than before. */
class ProgressCount {
  reported = 0;

  constructor(private readonly input: GenerationInput) {}

  report(tokens: number, text?: string): void {
    const capped = Math.min(tokens, this.input.sampling.maxTokens);
    if (capped <= this.reported) return;
    this.reported = capped;
    this.input.onProgress(text === undefined ? { tokens: capped } : { tokens: capped, text });
  }
}

/**
 * llama.cpp's own server, run by the worker as its llama.cpp engine: llama.cpp samples in the loop
 * that decodes, and decodes every busy slot's next token in one batch. As in the in-process engine,
 * a job takes the free slot whose cache shares the longest prefix with its prompt (and is pinned to
 * it with `id_slot`), so a conversation's next turn reads only what is new. The prompt is rendered
 * with the GGUF's chat template and tokenized in the worker (ChatPrompt) and sent as tokens, so the
 * count is exactly what the server reads; the reply comes in one answer, and progress is read from
 * GET /slots (SlotMonitor) ten times a second. A job whose client reads the reply as it grows
 * (`streamText`) has the answer streamed instead, token by token.
 */
export class LlamaServerLlmEngine implements LlmEngine {
  readonly name = "llama.cpp (llama-server)";
  readonly features = LLAMA_SERVER_FEATURES;
  private readonly pool: SlotPool<ServerSlot>;
  /** Reproducible jobs (a client's seed, temperature 0) are decoded alone: see RunGate. */
  private readonly gate = new RunGate();
  private readonly monitor: SlotMonitor;
  private readonly states: SlotStates;
  /** The operator's turns (a character's system turn) as tokens, by their JSON. */
  private readonly operatorTokens = new Map<string, number[]>();
  /** The prompt last tokenized: trimming counts the conversation that generate() then sends. */
  private last: { key: string; tokens: number[] } | null = null;

  private constructor(
    private readonly server: LlamaServerProcess,
    private readonly prompt: ChatPrompt,
    readonly contextTokens: number,
    slots: number,
    statesMiB: number,
  ) {
    this.pool = new SlotPool(Array.from({ length: slots }, (_, id) => new ServerSlot(id)));
    this.monitor = new SlotMonitor(() => `${server.url}/slots`, PROGRESS_POLL_MS);
    this.states = new SlotStates(() => server.url, server.stateDirectory, statesMiB * 1024 * 1024);
  }

  static async start(settings: LlamaServerSettings): Promise<LlamaServerLlmEngine> {
    const prompt = await ChatPrompt.load(settings.modelPath);
    const server = await LlamaServerProcess.start(settings).catch(async (error: unknown) => {
      await prompt.close();
      throw error;
    });
    try {
      const props = (await (await fetch(`${server.url}/props`)).json()) as {
        total_slots?: number;
        default_generation_settings?: { n_ctx?: number };
      };
      return new LlamaServerLlmEngine(
        server,
        prompt,
        props.default_generation_settings?.n_ctx ?? settings.contextPerSlot,
        props.total_slots ?? settings.slots,
        settings.promptCacheMiB ?? DEFAULT_STATES_MIB,
      );
    } catch (error) {
      await server.stop();
      await prompt.close();
      throw error;
    }
  }

  countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return Promise.resolve(this.promptTokens(turns).length);
  }

  countRawPromptTokens(prompt: string): Promise<number> {
    return Promise.resolve(this.prompt.rawTokens(prompt).length);
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    input.signal.throwIfAborted();
    const progress = new ProgressCount(input);
    const result = await this.whileReachable(() => this.generateOnce(input, progress), input.signal);
    progress.report(result.tokens);
    return result;
  }

  /**
   * Runs `call`; when the server cannot be reached (it died and is being restarted), waits for it and
   * runs it again, three times at most. The failed call may come a moment before the worker learns
   * of the exit, hence the pause. A reply started again after a crash starts from scratch: its
   * progress, kept monotonic, may then run ahead of its final token count.
   */
  private async whileReachable<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof ServerUnreachable) || attempt >= 3) throw error;
        await sleep(250, undefined, { signal }).catch(() => {
          throw signal.reason;
        });
        await this.server.whenReady(signal);
      }
    }
  }

  async close(): Promise<void> {
    await this.server.stop();
    await this.prompt.close();
  }

  private async generateOnce(input: GenerationInput, progress: ProgressCount): Promise<GenerationResult> {
    const prompt =
      input.rawPrompt !== undefined ? this.prompt.rawTokens(input.rawPrompt) : this.promptTokens(input.turns);
    const leaveGate = await this.gate.enter(input.sampling.reproducible === true, input.signal);
    const scope = this.scopeOf(input, prompt);
    const borrowed = await this.pool.acquire(prompt, input.signal, scope).catch((error: unknown) => {
      leaveGate();
      throw error;
    });
    const { slot } = borrowed;
    const previous = slot.lastReply;
    let unwatch = () => undefined as void;
    let prepared = false;
    try {
      if (scope) await this.prepare(borrowed, prompt, scope);
      prepared = true;
      if (!input.streamText)
        unwatch = this.monitor.watch(slot.id, input.sampling.seed, (tokens, text) =>
          progress.report(tokens, text === previous ? undefined : text),
        );
      const result = input.streamText
        ? await this.completeStreamed(slot, prompt, input, progress)
        : await this.complete(slot, prompt, input);
      slot.lastReply = result.text;
      return result;
    } finally {
      unwatch();
      slot.tokens = prompt;
      // What it holds is unknown: another key's, maybe. Nobody's: every next job cuts it first.
      if (!prepared) [slot.tokens, slot.owner] = [[], UNKNOWN_OWNER];
      // The server lets go of a cancelled request within about a second (it checks the connection
      // once a second): the slot is lent again only then, so no job queues behind the cancelled
      // one and no job's progress is read from it.
      const release = () => {
        this.pool.release(slot);
        leaveGate();
      };
      if (input.signal.aborted) void this.monitor.untilIdle(slot.id).then(release);
      else release();
    }
  }

  /** The job's key and how many of its prompt's tokens are the operator's (shared with every key). */
  private scopeOf(input: GenerationInput, prompt: readonly number[]): CacheScope | undefined {
    if (!input.cacheScope) return undefined;
    const { owner, sharedTurns } = input.cacheScope;
    const key = JSON.stringify(sharedTurns);
    let operator = this.operatorTokens.get(key);
    if (!operator) this.operatorTokens.set(key, (operator = this.prompt.tokens(sharedTurns)));
    return { owner, sharedTokens: sharedPrefixLength(prompt, operator) };
  }

  /**
   * Makes the slot hold nothing of another key's beyond the operator's prefix: what it held is kept
   * for its key when this job would lose most of it (or cuts it), then the job's own key's best saved
   * state is restored when it reuses more, else another key's slot is cut back to the shared prefix.
   */
  private async prepare(borrowed: Borrowed<ServerSlot>, prompt: readonly number[], scope: CacheScope): Promise<void> {
    const { slot, sharedPrefix, mustCut, previousOwner } = borrowed;
    const kept = this.states.best(scope.owner, prompt);
    const restoring = kept !== null && kept.common > sharedPrefix;
    const losing = restoring || mustCut || sharedPrefix < slot.tokens.length / 2;
    if (losing && previousOwner !== null && previousOwner !== UNKNOWN_OWNER)
      await this.states.save(slot, previousOwner);
    if (restoring) await this.states.restore(slot, kept.state).catch(() => this.states.erase(slot));
    else if (mustCut) await this.cutTo(slot, prompt, sharedPrefix);
  }

  /**
   * Leaves the slot holding the prompt's first `keep` tokens only. The server reuses the longest
   * common prefix of what a slot holds and cannot be told to stop earlier, so it is sent those tokens
   * and one that differs from both what the slot holds next and what the prompt has next: it keeps
   * `keep`, reads one token, and the job's prompt then matches exactly `keep`.
   */
  private async cutTo(slot: ServerSlot, prompt: readonly number[], keep: number): Promise<void> {
    if (keep === 0) return this.states.erase(slot);
    const filler = FILLER_TOKENS.find((token) => token !== slot.tokens[keep] && token !== prompt[keep])!;
    const tokens = [...prompt.slice(0, keep), filler];
    const body = { prompt: tokens, n_predict: 1, id_slot: slot.id, cache_prompt: true, response_fields: ["content"] };
    await this.send("/completion", body, AbortSignal.timeout(CUT_TIMEOUT_MS)).then((response) => response.text());
    slot.tokens = tokens;
  }

  private promptTokens(turns: ChatTurn[]): number[] {
    const key = JSON.stringify(turns);
    if (this.last?.key !== key) this.last = { key, tokens: this.prompt.tokens(turns) };
    return this.last.tokens;
  }

  /** The native /completion request: the prompt as the tokens already counted (ChatPrompt), pinned to the slot. */
  private completionBody(slot: ServerSlot, prompt: number[], input: GenerationInput) {
    return {
      prompt,
      ...samplingFields(input),
      stop: jobStopSequences({ prompt: input.rawPrompt, stop: input.stop }),
      id_slot: slot.id,
      response_fields: COMPLETION_FIELDS,
    };
  }

  private async complete(slot: ServerSlot, prompt: number[], input: GenerationInput): Promise<GenerationResult> {
    const answer = await this.call(input.signal, async () => {
      const response = await this.send("/completion", this.completionBody(slot, prompt, input), input.signal);
      return JSON.parse(await response.text()) as Completion;
    });
    return resultOf(answer.content ?? "", answer);
  }

  /** The same request streamed: each token's text is reported as it comes (held-back stop sequences excepted). */
  private async completeStreamed(
    slot: ServerSlot,
    prompt: number[],
    input: GenerationInput,
    progress: ProgressCount,
  ): Promise<GenerationResult> {
    return this.call(input.signal, async () => {
      // `stop` kept in the last event's fields: it is how that event is told from the tokens' events.
      const body = {
        ...this.completionBody(slot, prompt, input),
        stream: true,
        response_fields: [...COMPLETION_FIELDS, "stop"],
      };
      const response = await this.send("/completion", body, input.signal);
      if (!response.body) throw new ServerAnswered("llama-server's streamed answer had no body");
      let text = "";
      let last: StreamedCompletionEvent = {};
      for await (const event of sseJsonEvents<StreamedCompletionEvent>(response.body)) {
        last = event;
        if (event.stop) break;
        text += event.content ?? "";
        progress.report(event.tokens_predicted ?? 0, text);
      }
      if (!last.stop) throw new ServerUnreachable("llama-server's streamed answer ended before its last event");
      return resultOf(text, last);
    });
  }

  /** POSTs JSON; an answer that is not a success is the job's failure, its message shown. */
  private async send(path: string, body: object, signal: AbortSignal): Promise<Response> {
    const response = await fetch(`${this.server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok)
      throw new ServerAnswered(`llama-server answered ${response.status}: ${errorMessage(await response.text())}`);
    return response;
  }

  /**
   * Runs a request and the reading of its answer; an abort rejects with the signal's reason. Only a
   * connection that failed (while sending or reading) means the server is gone (it is then
   * restarted): anything else, such as fetch's own 300 s wait for the answer's headers, is the job's
   * failure, said as it is.
   */
  private async call<T>(signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ServerAnswered || error instanceof ServerUnreachable) throw error;
      const code = (error as { cause?: { code?: string } }).cause?.code ?? "";
      const why = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ""}`;
      if (CONNECTION_LOST.has(code))
        throw new ServerUnreachable(`llama-server could not be reached: ${why}`, { cause: error });
      throw new Error(`llama-server request failed: ${why}`, { cause: error });
    }
  }
}

/** An answer's counts, whole or the last streamed event's. */
function resultOf(text: string, answer: Completion): GenerationResult {
  return {
    text,
    finishReason: answer.stop_type === "limit" ? "length" : "stop",
    tokens: answer.tokens_predicted ?? 0,
    promptTokens: answer.tokens_evaluated ?? 0,
    cachedTokens: answer.timings?.cache_n ?? 0,
  };
}

/** llama-server's error envelope is OpenAI's: `{error: {message}}`; anything else is shown as sent. */
function errorMessage(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    return text;
  }
}
