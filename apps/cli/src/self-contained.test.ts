import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const THIS_FILE = "apps/cli/src/self-contained.test.ts";
// Built from parts so that this file does not match itself.
const OUTSIDE_THE_REPOSITORY = new RegExp(["\\.\\./", "shared/"].join(""));

function trackedFiles(): string[] {
  const listed = spawnSync("git", ["ls-files", "-z"], { cwd: REPO_ROOT, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${REPO_ROOT}: ${listed.stderr}`);
  return listed.stdout.split("\0").filter(Boolean);
}

const isText = (content: Buffer) => !content.subarray(0, 8000).includes(0);

describe("the repository is self-contained", () => {
  it("when any tracked file is read, then none refers to a shared folder beside the repository", () => {
    const referring = trackedFiles()
      .filter((file) => file !== THIS_FILE && existsSync(`${REPO_ROOT}${file}`))
      .filter((file) => {
        const content = readFileSync(`${REPO_ROOT}${file}`);
        return isText(content) && OUTSIDE_THE_REPOSITORY.test(content.toString("utf8"));
      });
    expect(referring).toEqual([]);
  });

  it("when the tests and the bench look for the fixture model, then it is in the repository", () => {
    expect(existsSync(`${REPO_ROOT}fixtures/models/stories260K-chatml.gguf`)).toBe(true);
    expect(existsSync(`${REPO_ROOT}fixtures/models/LICENSE`)).toBe(true);
  });
});
