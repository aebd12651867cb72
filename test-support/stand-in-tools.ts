import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes shell scripts named like the tools they stand in for (git, cmake…) into `dir/tools` and
 * returns a PATH that finds them first, so a test drives a build without compiling anything.
 */
export function standInToolsPath(dir: string, scripts: Record<string, string>): string {
  const tools = join(dir, "tools");
  mkdirSync(tools, { recursive: true });
  for (const [name, script] of Object.entries(scripts)) {
    writeFileSync(join(tools, name), script);
    chmodSync(join(tools, name), 0o755);
  }
  return `${tools}:${process.env.PATH ?? ""}`;
}
