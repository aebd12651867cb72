import type { EnvSchema } from "../config/load-config.js";

/**
 * What every entry point does with its command line: `--help`/`-h` prints the usage and exits 0;
 * an option or argument it does not take prints the problem and the usage and exits 2 (so a typo
 * never starts a service). `parse` is the entry point's own `parseArgs` call (strict).
 */
export function parseCommandLine<T>(usage: string, parse: (argv: string[]) => T, argv = process.argv.slice(2)): T {
  const text = usage.endsWith("\n") ? usage : `${usage}\n`;
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(text);
    process.exit(0);
  }
  try {
    return parse(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${text}`);
    process.exit(2);
  }
}

/** The environment variables of a service as usage text: name, default, description. */
export function environmentUsage(schema: EnvSchema): string {
  const width = Math.max(...Object.keys(schema).map((name) => name.length));
  return Object.entries(schema)
    .map(([name, spec]) => `  ${name.padEnd(width)}  ${spec.description}${spec.default === undefined ? "" : ` (default ${String(spec.default)})`}`)
    .join("\n");
}
