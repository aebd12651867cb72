import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import ESpeakNg from "espeak-ng";
import type { PcmAudio } from "../../audio/pcm-audio.js";
import { decodeWav } from "../../audio/wav.codec.js";
import type { EspeakSettings } from "./espeak-voices.js";

// Runs inside a speech thread: every call blocks its thread for the whole synthesis.

/** The part of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let compiled: Promise<object> | undefined;

/** The 18 MB eSpeak NG WASM binary (program + voice data), compiled once per thread. */
function espeakModule(): Promise<object> {
  compiled ??= (async () => {
    const wasmPath = createRequire(import.meta.url)
      .resolve("espeak-ng")
      .replace(/\.js$/, ".wasm");
    return wasmApi.compile(await readFile(wasmPath));
  })();
  return compiled;
}

function argumentsFor(settings: EspeakSettings): string[] {
  return [
    ...["-v", settings.voice, "-s", String(settings.wordsPerMinute), "-p", String(settings.pitch)],
    ...["-g", String(settings.wordGap), "-b", "1"], // -b 1: the input is UTF-8
    ...["-w", "/out.wav", "-f", "/in.txt"], // text through a file: no quoting, no argument-length limit
  ];
}

/**
 * Speaks `text` with eSpeak NG into 16-bit mono PCM (22050 Hz). This build runs main() once per
 * module instance, so each call instantiates the precompiled module afresh (~75 ms of overhead).
 */
export async function synthesizeWithEspeak(text: string, settings: EspeakSettings): Promise<PcmAudio> {
  const wasm = await espeakModule();
  const errors: string[] = [];
  let instantiationFailed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => (instantiationFailed = reject));
  const instance = await Promise.race([
    ESpeakNg({
      arguments: argumentsFor(settings),
      preRun: [(module) => module.FS.writeFile("/in.txt", text)],
      print: () => undefined,
      printErr: (line) => void errors.push(line),
      // Emscripten would wait forever on a failed instantiation: race it.
      instantiateWasm: (imports, receive) => {
        wasmApi.instantiate(wasm, imports).then((instance) => receive(instance, wasm), instantiationFailed);
        return {};
      },
    }),
    failure,
  ]);
  // A failing main() leaves its status in process.exitCode: this thread's, but it must not linger.
  process.exitCode = undefined;
  let wav: Uint8Array;
  try {
    wav = instance.FS.readFile("/out.wav");
  } catch {
    // An unknown voice, for one, writes no file; the reason only ever reaches printErr.
    throw new Error(`eSpeak NG produced no audio (voice ${settings.voice}): ${errors[0] ?? "no reason given"}`);
  }
  return decodeWav(wav);
}
