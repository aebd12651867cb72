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
    process.stderr.write(`${plainParseError(error)}\n\n${text}`);
    process.exit(2);
  }
}

/**
 * Node's parseArgs messages in a user's words: its unknown-option text goes on about positional
 * arguments (with an unclosed quote) that these commands rarely take.
 */
export function plainParseError(error: unknown): string {
  // Not `instanceof Error`: the error may come from another realm (a test's VM context).
  const { message, code } =
    typeof error === "object" && error !== null
      ? (error as NodeJS.ErrnoException)
      : { message: String(error), code: undefined };
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown)
    return `unknown option ${unknown[1]} (the options are listed below)`;
  const missing = /^Option '(?:-\w, )?(--?[\w-]+)/.exec(message);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && missing && message.endsWith("argument missing"))
    return `option ${missing[1]} needs a value`;
  const positional = /^Unexpected argument '([^']*)'/.exec(message);
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && positional)
    return `unexpected argument '${positional[1]}': this command takes options only`;
  return message;
}

/** The environment variables of a service as usage text: name, default, description. */
export function environmentUsage(schema: EnvSchema): string {
  const width = Math.max(...Object.keys(schema).map((name) => name.length));
  return Object.entries(schema)
    .map(
      ([name, spec]) =>
        `  ${name.padEnd(width)}  ${spec.description}${spec.default === undefined ? "" : ` (default ${String(spec.default)})`}`,
    )
    .join("\n");
}
