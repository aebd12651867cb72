import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * CI reads the last line of `npm test`'s log: it must be jest's count, after jest's own summary.
 * Jest runs here on one small test file, its stdout and stderr into one file as in a CI log.
 */
describe("the test report", () => {
  it("when jest finishes, then the very last line of its log is 'jest: N passed, N failed, N skipped'", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chorus-test-report-"));
    try {
      const log = join(dir, "log");
      const fd = openSync(log, "w");
      const result = spawnSync(
        process.execPath,
        [
          "--experimental-vm-modules",
          "node_modules/jest/bin/jest.js",
          "packages/local-runtime/src/app-command.test.ts",
        ],
        {
          cwd: ROOT,
          stdio: ["ignore", fd, fd],
          timeout: 50_000,
        },
      );
      closeSync(fd);
      const lines = readFileSync(log, "utf8").trimEnd().split("\n");
      expect(result.status).toBe(0);
      expect(lines.at(-1)).toBe("jest: 3 passed, 0 failed, 0 skipped");
      expect(lines.some((line) => /^Tests:\s+3 passed, 3 total/.test(line))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
