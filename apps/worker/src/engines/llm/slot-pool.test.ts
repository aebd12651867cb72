import { SlotPool, sharedPrefixLength, type CacheSlot } from "./slot-pool.js";

class FakeSlot implements CacheSlot {
  owner: string | null = null;
  constructor(
    readonly name: string,
    public tokens: number[] = [],
  ) {}
  cachedTokens(): readonly number[] {
    return this.tokens;
  }
}

const live = () => new AbortController().signal;

describe("sharedPrefixLength", () => {
  it.each([
    [[], [], 0],
    [[1, 2, 3], [1, 2, 3], 3],
    [[1, 2, 3], [1, 2], 2],
    [[1, 2], [1, 2, 3], 2],
    [[1, 9, 3], [1, 2, 3], 1],
    [[4], [1], 0],
  ])("of %j and %j is %i", (a, b, expected) => {
    expect(sharedPrefixLength(a, b)).toBe(expected);
  });
});

describe("SlotPool", () => {
  it("when a prompt shares its start with one free slot's cache, then that slot is lent with the shared length", async () => {
    const pool = new SlotPool([new FakeSlot("a", [1, 2]), new FakeSlot("b", [7, 8, 9, 10]), new FakeSlot("c", [7, 8])]);
    const { slot, sharedPrefix } = await pool.acquire([7, 8, 9, 5], live());
    expect(slot.name).toBe("b");
    expect(sharedPrefix).toBe(3);
  });

  it("when no free slot shares anything, then the one free the longest is lent (its cache is the oldest)", async () => {
    const [a, b] = [new FakeSlot("a", [1]), new FakeSlot("b", [2])];
    const pool = new SlotPool([a, b]);
    const first = await pool.acquire([1], live());
    expect(first.slot).toBe(a);
    pool.release(a);
    expect((await pool.acquire([5], live())).slot).toBe(b);
  });

  it("when every slot is busy, then acquire waits and the next released slot goes to the first waiter", async () => {
    const pool = new SlotPool([new FakeSlot("only")]);
    const held = await pool.acquire([1], live());
    const order: string[] = [];
    const second = pool.acquire([2], live()).then((b) => {
      order.push("second");
      return b;
    });
    const third = pool.acquire([3], live()).then((b) => {
      order.push("third");
      return b;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(pool.busyCount).toBe(1);
    pool.release(held.slot);
    pool.release((await second).slot);
    await third;
    expect(order).toEqual(["second", "third"]);
  });

  it("when a waiter is aborted, then it rejects with the reason and the slot goes to the next waiter", async () => {
    const pool = new SlotPool([new FakeSlot("only")]);
    const held = await pool.acquire([1], live());
    const controller = new AbortController();
    const reason = new Error("cancelled while waiting");
    const aborted = pool.acquire([2], controller.signal);
    const next = pool.acquire([3], live());
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    pool.release(held.slot);
    await expect(next).resolves.toMatchObject({ slot: held.slot });
  });

  it("when the signal is already aborted, then acquire rejects at once and lends nothing", async () => {
    const pool = new SlotPool([new FakeSlot("only")]);
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    await expect(pool.acquire([1], controller.signal)).rejects.toThrow("too late");
    expect(pool.busyCount).toBe(0);
  });

  it("when a slot is released twice or was never lent, then it throws", async () => {
    const slot = new FakeSlot("a");
    const pool = new SlotPool([slot]);
    expect(() => pool.release(slot)).toThrow("not borrowed");
    pool.release((await pool.acquire([1], live())).slot);
    expect(() => pool.release(slot)).toThrow("not borrowed");
    expect(pool.busyCount).toBe(0);
    expect(() => pool.release(new FakeSlot("stranger"))).toThrow("not borrowed");
  });

  it("when created without slots, then it throws", () => {
    expect(() => new SlotPool([])).toThrow("at least one slot");
  });
});

describe("SlotPool scoped by key", () => {
  const operatorPart = 2;
  const scope = (owner: string) => ({ owner, sharedTokens: operatorPart });

  it("when another key's slot holds the prompt, then only the operator's part counts and the rest must be cut", async () => {
    const [a, b] = [new FakeSlot("a"), new FakeSlot("b")];
    const pool = new SlotPool([a, b]);
    const first = await pool.acquire([1, 2, 3, 4, 5], live(), scope("A"));
    a.tokens = [1, 2, 3, 4, 5];
    pool.release(first.slot);

    const own = await pool.acquire([1, 2, 3, 4, 5, 6], live(), scope("A"));
    expect(own).toMatchObject({ slot: a, sharedPrefix: 5, mustCut: false, previousOwner: "A" });
    pool.release(own.slot);

    const other = await pool.acquire([1, 2, 3, 4, 5, 6], live(), scope("B"));
    expect(other).toMatchObject({ slot: a, sharedPrefix: operatorPart, mustCut: true, previousOwner: "A" });
    expect(a.owner).toBe("B");
  });

  it("when another key's slot shares only the operator's part, then it is reused that far and cut there all the same", async () => {
    const a = new FakeSlot("a", [1, 2, 9, 9]);
    a.owner = "A";
    const pool = new SlotPool([a]);
    // Cut whether or not more matched: the cut's cost tells nothing of what the other key sent.
    expect(await pool.acquire([1, 2, 3], live(), scope("B"))).toMatchObject({ sharedPrefix: 2, mustCut: true });
  });
});
