import { retryFinalWrite } from "./retry-final-write.js";

const failing = (failures: number) => {
  let calls = 0;
  return {
    calls: () => calls,
    write: () => {
      calls++;
      if (calls <= failures) return Promise.reject(new Error(`LOADING failure ${calls}`));
      return Promise.resolve("written");
    },
  };
};

describe("retryFinalWrite", () => {
  it("when a write fails twice, then it is tried again after doubling waits and its result returned", async () => {
    const waits: number[] = [];
    const retried: number[] = [];
    const w = failing(2);
    const result = await retryFinalWrite(w.write, {
      firstDelayMs: 100,
      sleep: (ms) => Promise.resolve(waits.push(ms)),
      onRetry: (_e, attempt) => retried.push(attempt),
    });
    expect(result).toBe("written");
    expect(w.calls()).toBe(3);
    expect(waits).toEqual([100, 200]);
    expect(retried).toEqual([1, 2]);
  });

  it("when every try fails, then it gives up after the bounded number with the last error", async () => {
    const w = failing(10);
    await expect(retryFinalWrite(w.write, { attempts: 4, sleep: () => Promise.resolve() })).rejects.toThrow(
      "LOADING failure 4",
    );
    expect(w.calls()).toBe(4);
  });

  it("when the first try succeeds, then nothing waits", async () => {
    const waits: number[] = [];
    expect(await retryFinalWrite(() => Promise.resolve(1), { sleep: (ms) => Promise.resolve(waits.push(ms)) })).toBe(1);
    expect(waits).toEqual([]);
  });
});
