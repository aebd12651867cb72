import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import ESpeakNg, { type ESpeakNgModule } from "espeak-ng";
import { decodeWav, type PcmAudio } from "@chorus/audio";
import type { EspeakSettings } from "./espeak-voices.js";

// Runs inside a speech thread: every call blocks its thread for the whole synthesis.

/** The part of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<{ exports: object }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** What the instance exports that running main() by hand needs. */
interface EspeakExports {
  memory: { buffer: ArrayBuffer };
  malloc(bytes: number): number;
  __main_argc_argv(argc: number, argv: number): number;
}

/** An instance whose runtime is up and whose main() has not run: each instance runs it once. */
interface ReadyEspeak {
  module: ESpeakNgModule;
  exports: EspeakExports;
  errors: string[];
}

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

/**
 * A fresh instance, main() not run: this is the start-up every synthesis pays (~75 ms quiet, a few
 * hundred on a loaded machine), nearly all of it Emscripten making the embedded voice files in its FS.
 */
async function readyInstance(): Promise<ReadyEspeak> {
  const wasm = await espeakModule();
  const errors: string[] = [];
  let exports: EspeakExports | undefined;
  let instantiationFailed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => (instantiationFailed = reject));
  // Making those files throws (and catches) an ErrnoError per existing directory, each capturing a
  // stack trace: ~40 ms of every start-up on a busy machine (cpu profile, 2026-11-26). Nobody reads them.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const module = await Promise.race([
    ESpeakNg({
      noInitialRun: true,
      print: () => undefined,
      printErr: (line) => void errors.push(line),
      // Emscripten would wait forever on a failed instantiation: race it.
      instantiateWasm: (imports, receive) => {
        wasmApi.instantiate(wasm, imports).then((instance) => {
          exports = instance.exports as EspeakExports;
          receive(instance, wasm);
        }, instantiationFailed);
        return {};
      },
    }),
    failure,
  ]).finally(() => (Error.stackTraceLimit = stackTraceLimit));
  if (!exports) throw new Error("eSpeak NG started without its exports");
  return { module, exports, errors };
}

/** The next synthesis's instance, made while the thread had nothing else to do. */
let spare: Promise<ReadyEspeak> | undefined;

/**
 * Makes the next synthesis's instance now: call it when the thread is idle (after a task), so the
 * next one starts at once (a streamed answer's first piece, above all). Holds one instance's memory.
 */
export function prepareSpareInstance(): void {
  spare ??= readyInstance();
  spare.catch(() => (spare = undefined)); // the next synthesis makes its own
}

function takeInstance(): Promise<ReadyEspeak> {
  const instance = spare ?? readyInstance();
  spare = undefined;
  return instance;
}

function argumentsFor(settings: EspeakSettings): string[] {
  return [
    ...["-v", settings.voice, "-s", String(settings.wordsPerMinute), "-p", String(settings.pitch)],
    ...["-g", String(settings.wordGap), "-b", "1"], // -b 1: the input is UTF-8
    ...["-w", "/out.wav", "-f", "/in.txt"], // text through a file: no quoting, no argument-length limit
  ];
}

/** Runs main() with `args` (argv built in the instance's own memory), as Emscripten's callMain would. */
function runMain({ exports }: ReadyEspeak, args: string[]): void {
  const argv = ["espeak-ng", ...args].map((arg) => {
    const bytes = new TextEncoder().encode(`${arg}\0`);
    const at = exports.malloc(bytes.length);
    new Uint8Array(exports.memory.buffer, at, bytes.length).set(bytes);
    return at;
  });
  const table = exports.malloc((argv.length + 1) * 4);
  new Uint32Array(exports.memory.buffer, table, argv.length + 1).set([...argv, 0]);
  try {
    exports.__main_argc_argv(argv.length, table);
  } catch (error) {
    // exit() inside main() unwinds as Emscripten's ExitStatus: main is over, its output tells the rest.
    if ((error as { name?: string } | null)?.name !== "ExitStatus") throw error;
  } finally {
    // A failing main() leaves its status in process.exitCode: this thread's, but it must not linger.
    process.exitCode = undefined;
  }
}

/**
 * Speaks `text` with eSpeak NG into 16-bit mono PCM (22050 Hz), on an instance of its own (the spare, if one is ready).
 */
export async function synthesizeWithEspeak(text: string, settings: EspeakSettings): Promise<PcmAudio> {
  const instance = await takeInstance();
  instance.module.FS.writeFile("/in.txt", text);
  runMain(instance, argumentsFor(settings));
  let wav: Uint8Array;
  try {
    wav = instance.module.FS.readFile("/out.wav");
  } catch {
    // An unknown voice, for one, writes no file; the reason only ever reaches printErr.
    throw new Error(
      `eSpeak NG produced no audio (voice ${settings.voice}): ${instance.errors[0] ?? "no reason given"}`,
    );
  }
  return decodeWav(wav);
}
