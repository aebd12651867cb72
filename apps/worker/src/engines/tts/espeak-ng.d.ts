// The npm package `espeak-ng` (an Emscripten build of the eSpeak NG command line) ships no types.
declare module "espeak-ng" {
  interface EmscriptenFs {
    writeFile(path: string, data: string | Uint8Array): void;
    readFile(path: string): Uint8Array;
  }

  export interface ESpeakNgModule {
    FS: EmscriptenFs;
  }

  export interface ESpeakNgOptions {
    /** Command-line arguments: main() runs with them as soon as the module is ready. */
    arguments?: string[];
    /** Get the runtime (and its embedded voice files) ready, but do not run main(). */
    noInitialRun?: boolean;
    preRun?: ((module: ESpeakNgModule) => void)[];
    print?: (line: string) => void;
    printErr?: (line: string) => void;
    /**
     * WebAssembly.Imports -> (WebAssembly.Instance, WebAssembly.Module): the project's libs do not declare WebAssembly.
     */
    instantiateWasm?: (imports: object, receive: (instance: object, module: object) => void) => object;
  }

  export default function ESpeakNg(options: ESpeakNgOptions): Promise<ESpeakNgModule>;
}
