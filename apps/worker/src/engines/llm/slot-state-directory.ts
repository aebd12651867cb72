import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "chorus-slots-";

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * A private folder for llama-server's saved slots, named for this process. The folders of processes
 * that died without stopping (kill -9) are removed first: they hold other keys' prompts.
 */
export async function createSlotStateDirectory(parent = tmpdir()): Promise<string> {
  const leftovers = (await readdir(parent).catch(() => [])).filter((name) => {
    const pid = Number(/^chorus-slots-(\d+)-/.exec(name)?.[1]);
    return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
  });
  await Promise.all(leftovers.map((name) => rm(join(parent, name), { recursive: true, force: true })));
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}
