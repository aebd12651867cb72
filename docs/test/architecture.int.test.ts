import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKSPACES = ["apps/gateway", "apps/worker", "apps/cli", "bench", ...packages()];

function packages(): string[] {
  return readdirSync(join(ROOT, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}`);
}

/** Every folder under a workspace's src/, as paths relative to it ("engines/llm"). */
function foldersOf(workspace: string): string[] {
  const src = join(ROOT, workspace, "src");
  return readdirSync(src, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => relative(src, join(entry.parentPath, entry.name)));
}

/** The "Where things live" tree: for each workspace header (`apps/worker/src/`), the lines below it. */
function treeSections(): Map<string, string> {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const tree = /## Where things live[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const sections = new Map<string, string>();
  let current = "";
  for (const line of tree.split("\n")) {
    const header = /^(\S+\/src)\//.exec(line)?.[1];
    if (header) current = header;
    else if (/^\S/.test(line)) current = "";
    if (current) sections.set(current, `${sections.get(current) ?? ""}${line}\n`);
  }
  return sections;
}

describe("docs/architecture.md", () => {
  const sections = treeSections();

  it.each(WORKSPACES)("when %s has folders under src/, then the tree names each of them under it", (workspace) => {
    const section = sections.get(`${workspace}/src`);
    expect(section).toBeDefined();
    const unnamed = foldersOf(workspace).filter((folder) => {
      const last = folder.split("/").at(-1) ?? folder;
      return !new RegExp(`(^|[\\s(])${last}/`, "m").test(section ?? "");
    });
    expect(unnamed).toEqual([]);
  });

  it("when a step of a request path names a file, then that file exists", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const named = [...doc.matchAll(/`((?:[a-z-]+\/)+[A-Za-z0-9.-]+\.(?:ts|lua))`/g)].map((m) => m[1] as string);
    const roots = WORKSPACES.map((workspace) => join(ROOT, workspace, "src"));
    const exists = (path: string) =>
      [ROOT, ...roots].some((root) => {
        try {
          readFileSync(join(root, path));
          return true;
        } catch {
          return false;
        }
      });
    const lost = [...new Set(named)].filter((path) => !exists(path) && !exists(path.replace(/^[^/]+\//, "")));
    expect(lost).toEqual([]);
  });
});
