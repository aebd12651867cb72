import { EspeakSpeechEngine, type SpeechEngine } from "@chorus/worker/speech";
import { startTestGateway, type TestGateway } from "./gateway.js";
import { uniquePrefix } from "./redis.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "./worker.js";

export interface TestService {
  gw: TestGateway;
  worker: TestWorker;
  close(): Promise<void>;
}

/** The gateway and the real worker (the fixture model, eSpeak NG speech) in this process, under one fresh prefix. */
export async function startTestServiceWithSpeech(
  label: string,
  gatewayEnv: Record<string, string> = {},
  speechConcurrency = 2,
  /** Lets a test see (or hold up) what the real engine hands over; the engine itself is always eSpeak NG. */
  wrapSpeech: (engine: SpeechEngine) => SpeechEngine = (engine) => engine,
): Promise<TestService> {
  const prefix = uniquePrefix(label);
  const gw = await startTestGateway(prefix, gatewayEnv);
  const llm = await loadFixtureEngine();
  const speech = new EspeakSpeechEngine({ concurrency: speechConcurrency });
  const worker = await startTestWorker(prefix, llm, {
    speech: { speech: wrapSpeech(speech), concurrency: speechConcurrency, audioTtlSeconds: 60 },
  });
  return {
    gw,
    worker,
    close: async () => {
      await worker.close();
      await speech.close();
      await llm.close();
      await gw.close();
    },
  };
}
