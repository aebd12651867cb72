import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { ChatTurn } from "../src/engines/llm/llm-engine.js";
import { LlamaServerLlmEngine } from "../src/engines/llm/llama-server.llm-engine.js";
import { LlamaServerProcess, type LlamaServerSettings } from "../src/engines/llm/llama-server.process.js";
import { describeWithModel, FIXTURE_MODEL } from "../../../test-support/fixtures.js";
import { testLogger } from "../../../test-support/logger.js";
import { childrenOf, isAlive, waitUntilGone } from "../../../test-support/process-tree.js";
import { LLAMA_SERVER_BINARY, TEST_LLAMA_THREADS } from "../../../test-support/worker.js";

/**
 * The worker's llama-server as a process: counted prompts match what it reads, it comes back after
 * a crash, and it never outlives the worker that started it. (The LlmEngine contract runs on it in
 * llama-engine.int.test.ts.)
 */
const describeWithServer = LLAMA_SERVER_BINARY ? describe : describe.skip;
const settings = (): LlamaServerSettings => ({
  binary: LLAMA_SERVER_BINARY ?? "",
  modelPath: FIXTURE_MODEL,
  threads: TEST_LLAMA_THREADS,
  slots: 2,
  contextPerSlot: 1024,
  gpu: false,
  logger: testLogger("llama-server"),
});
const turns = [
  { role: "system" as const, content: "You are a storyteller." },
  { role: "user" as const, content: "Tell me about a cat who sails." },
];
const sampling = { maxTokens: 8, temperature: 0.8, topP: 0.95, seed: 7 };

/** The llama-server a guard runs (its only child). */
function serverPidOf(guardPid: number | undefined): number {
  const [pid] = childrenOf(guardPid ?? -1);
  if (pid === undefined) throw new Error(`no llama-server under guard ${String(guardPid)}`);
  return pid;
}

/** The engine's process, which it keeps to itself. */
const serverOf = (engine: LlamaServerLlmEngine) => (engine as unknown as { server: LlamaServerProcess }).server;

describeWithModel("llama-server run by the worker", () => {
  describeWithServer(
    `llama-server process${LLAMA_SERVER_BINARY ? "" : " [SKIPPED: no llama-server built; run npm run llama:build]"}`,
    () => {
      it("when a prompt is counted, then the count is the prompt tokens llama-server reads for the reply", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        try {
          const counted = await engine.countPromptTokens(turns);
          const result = await engine.generate({
            turns,
            sampling,
            signal: new AbortController().signal,
            onProgress: () => undefined,
          });
          expect(counted).toBeGreaterThan(10);
          expect(result.promptTokens).toBe(counted); // the server's tokens_evaluated
        } finally {
          await engine.close();
        }
      }, 60_000);

      it("when llama-server is killed in the middle of a reply, then the reply is made again on the restarted server", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        const server = serverOf(engine);
        const before = serverPidOf(server.pid);
        let killedAt: number | null = null;
        try {
          const onProgress = ({ tokens }: { tokens: number }) => {
            if (killedAt !== null) return;
            killedAt = tokens;
            process.kill(before, "SIGKILL");
          };
          const result = await engine.generate({
            turns,
            sampling: { ...sampling, maxTokens: 900 },
            signal: new AbortController().signal,
            onProgress,
          });
          expect(killedAt).not.toBeNull(); // the kill came while the reply was being made
          expect(result.tokens).toBeGreaterThan(0);
          expect(serverPidOf(server.pid)).not.toBe(before);
        } finally {
          await engine.close();
        }
      }, 60_000);

      it("when a job streams its text, then each token's text is reported as it comes, and the reply is the one not streamed gives", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        try {
          const long = { ...sampling, maxTokens: 48 };
          const whole = await engine.generate({
            turns,
            sampling: long,
            signal: new AbortController().signal,
            onProgress: () => undefined,
          });
          const texts: string[] = [];
          const onProgress = ({ text }: { text?: string }) => void (text !== undefined && texts.push(text));
          const streamed = await engine.generate({
            turns,
            sampling: long,
            signal: new AbortController().signal,
            onProgress,
            streamText: true,
          });
          expect(streamed).toEqual({ ...whole, cachedTokens: expect.any(Number) }); // same seed, same reply and counts
          expect(streamed.tokens).toBeGreaterThan(20);
          expect(texts.length).toBeGreaterThanOrEqual(streamed.tokens / 2); // about one report a token, not one a poll
          texts.forEach((text, i) => expect(text.startsWith(texts[i - 1] ?? "")).toBe(true));
          expect(streamed.text.startsWith(texts.at(-1) ?? "")).toBe(true);
        } finally {
          await engine.close();
        }
      }, 60_000);

      it("when llama-server is killed in the middle of a streamed reply, then the reply is made again on the restarted server", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        const before = serverPidOf(serverOf(engine).pid);
        let killed = false;
        try {
          const onProgress = () => {
            if (killed) return;
            killed = true;
            process.kill(before, "SIGKILL");
          };
          const result = await engine.generate({
            turns,
            sampling: { ...sampling, maxTokens: 900 },
            signal: new AbortController().signal,
            onProgress,
            streamText: true,
          });
          expect(killed).toBe(true);
          expect(result.tokens).toBeGreaterThan(0);
          expect(serverPidOf(serverOf(engine).pid)).not.toBe(before);
        } finally {
          await engine.close();
        }
      }, 60_000);

      it("when the engine is closed while llama-server is being restarted, then it is not started again", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        const server = serverOf(engine);
        const guard = server.pid ?? -1;
        process.kill(serverPidOf(guard), "SIGKILL");
        expect(await waitUntilGone(guard)).toBe(true); // the guard exits with its server: a relaunch is due
        await engine.close(); // resolves once a relaunch under way has given up (stop() awaits it): no sleep needed
        expect(server.pid).toBe(guard);
      }, 60_000);

      it("when llama-server is killed, then it is started again on the same address and the next generation completes", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        const server = serverOf(engine);
        try {
          const before = serverPidOf(server.pid);
          const url = server.url;
          process.kill(before, "SIGKILL");
          expect(await waitUntilGone(before)).toBe(true);
          // The engine retries a generation that has not streamed a token while the server comes back.
          const result = await engine.generate({
            turns,
            sampling,
            signal: new AbortController().signal,
            onProgress: () => undefined,
          });
          expect(result.tokens).toBeGreaterThan(0);
          expect(server.url).toBe(url);
          expect(serverPidOf(server.pid)).not.toBe(before);
        } finally {
          await engine.close();
        }
      }, 60_000);

      it("when the engine is closed, then no llama-server is left", async () => {
        const engine = await LlamaServerLlmEngine.start(settings());
        const server = serverOf(engine);
        const guard = server.pid ?? -1;
        const pid = serverPidOf(guard);
        await engine.close();
        expect(isAlive(pid)).toBe(false);
        expect(isAlive(guard)).toBe(false);
      }, 60_000);

      /** A's next turn after B took the only slot: the prompt tokens llama-server reused for it. */
      async function cachedAfterSlotTaken(promptCacheMiB: number): Promise<{ cached: number; earlierPrompt: number }> {
        const engine = await LlamaServerLlmEngine.start({ ...settings(), slots: 1, promptCacheMiB });
        const run = async (conversation: ChatTurn[]) =>
          engine.generate({
            turns: conversation,
            sampling,
            signal: new AbortController().signal,
            onProgress: () => undefined,
            // One key's conversations: kept beyond the slot for that key (SlotStates).
            cacheScope: { owner: "key-a", sharedTurns: [] },
          });
        try {
          const first = await run(turns);
          await run([
            { role: "system", content: "Poems of the sea only." },
            { role: "user", content: "Write about a lighthouse keeper and her dog." },
          ]);
          const next = await run([
            ...turns,
            { role: "assistant", content: first.text },
            { role: "user", content: "What did the cat find?" },
          ]);
          return { cached: next.cachedTokens, earlierPrompt: first.promptTokens };
        } finally {
          await engine.close();
        }
      }

      it("when another conversation took the only slot, then the first one's next turn is still restored from the slot states its key keeps", async () => {
        const { cached, earlierPrompt } = await cachedAfterSlotTaken(64);
        expect(cached).toBeGreaterThanOrEqual(earlierPrompt - 1); // the earlier turn's prompt at least
      }, 60_000);

      it("when the slot states are off (LLM_CACHE_RAM_MB 0), then that next turn is read whole", async () => {
        const { cached, earlierPrompt } = await cachedAfterSlotTaken(0);
        // At most the chat template's start, shared with the other conversation
        expect(cached).toBeLessThan(earlierPrompt / 2);
      }, 60_000);

      it("when the worker that started it dies by SIGKILL, then llama-server goes too", async () => {
        const module = fileURLToPath(new URL("../dist/engines/llm/llama-server.process.js", import.meta.url));
        const script = `
        const { LlamaServerProcess } = await import(${JSON.stringify(module)});
        const logger = { info() {}, error() {}, warn() {} };
        const server = await LlamaServerProcess.start({ ...JSON.parse(process.argv[1]), logger });
        process.stdout.write(JSON.stringify({ guard: server.pid }) + "\\n");
        setInterval(() => undefined, 1000);`;
        const { logger: _logger, ...plain } = settings();
        const owner = spawn(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(plain)], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        const [line] = (await once(owner.stdout, "data")) as [Buffer];
        const { guard } = JSON.parse(line.toString()) as { guard: number };
        const pid = serverPidOf(guard);
        owner.kill("SIGKILL");
        expect(await waitUntilGone(pid)).toBe(true);
        expect(await waitUntilGone(guard)).toBe(true);
      }, 60_000);
    },
  );
});
