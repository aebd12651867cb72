import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearLocalRedis, localStateFile, runningLocalRedis, saveLocalRedis } from "./local-state.js";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "chorus-local-state-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the file in which npm start records its private Redis for npm run keys", () => {
  it("when two checkouts run npm start, then each has a file of its own, and one checkout always the same file", () => {
    const first = localStateFile("/home/ada/chorus", dir);
    const second = localStateFile("/home/ada/chorus-copy", dir);

    expect(first).not.toBe(second);
    expect(localStateFile("/home/ada/chorus/", dir)).toBe(first);
    expect(first.startsWith(dir)).toBe(true);
  });

  it("when two checkouts each record their Redis, then each finds its own Redis and key prefix", () => {
    const first = localStateFile("/home/ada/chorus", dir);
    const second = localStateFile("/home/ada/chorus-copy", dir);
    saveLocalRedis({ redisUrl: "redis://127.0.0.1:40001", prefix: "chorus" }, first);
    saveLocalRedis({ redisUrl: "redis://127.0.0.1:40002", prefix: "mine" }, second);

    expect(runningLocalRedis(first)).toEqual({ redisUrl: "redis://127.0.0.1:40001", prefix: "chorus" });
    expect(runningLocalRedis(second)).toEqual({ redisUrl: "redis://127.0.0.1:40002", prefix: "mine" });
    clearLocalRedis(first);
    expect(runningLocalRedis(first)).toBeNull();
    expect(runningLocalRedis(second)).not.toBeNull();
  });
});
