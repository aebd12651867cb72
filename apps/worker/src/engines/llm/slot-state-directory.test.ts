import { describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSlotStateDirectory } from "./slot-state-directory.js";

/** A pid no process has: above Linux's pid_max. */
const DEAD_PID = 4_194_305;

describe("the folder of saved slots", () => {
  it("when a process died without removing its folder, then the next start removes it and keeps live ones", async () => {
    const parent = mkdtempSync(join(tmpdir(), "chorus-slot-dirs-"));
    const dead = join(parent, `chorus-slots-${DEAD_PID}-abc`);
    const live = join(parent, `chorus-slots-${process.ppid}-def`);
    const unrelated = join(parent, "something-else");
    [dead, live, unrelated].forEach((dir) => mkdirSync(dir));

    const created = await createSlotStateDirectory(parent);

    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
    expect(created.startsWith(join(parent, `chorus-slots-${process.pid}-`))).toBe(true);
    expect(readdirSync(parent)).toHaveLength(3);
  });
});
