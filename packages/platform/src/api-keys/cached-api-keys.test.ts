import type { ApiKeyRecord, ApiKeyStore } from "./api-key-store.js";
import { CachedApiKeys } from "./cached-api-keys.js";

const record = (id: string): ApiKeyRecord => ({
  id,
  name: id,
  scopes: ["*"],
  limits: {},
  webhookHosts: null,
  ownWebhookSecret: true,
  createdAt: "",
  expiresAt: null,
  priority: "normal",
  revoked: false,
  replacedSecretUntil: null,
});

function fakeStore(keys: Record<string, ApiKeyRecord>) {
  const lookups: string[] = [];
  const store = {
    findBySecret: (secret: string) => (lookups.push(secret), Promise.resolve(keys[secret] ?? null)),
  } as unknown as ApiKeyStore;
  return { store, lookups };
}

describe("CachedApiKeys", () => {
  it("when a key is found, then it is served from memory until its time is up, then looked up again", async () => {
    let now = 5000;
    const { store, lookups } = fakeStore({ ck_a: record("a") });
    const cache = new CachedApiKeys(store, 1000, 10, () => now);
    await cache.findBySecret("ck_a");
    now = 5999;
    expect((await cache.findBySecret("ck_a"))?.id).toBe("a");
    expect(lookups).toEqual(["ck_a"]);
    now = 6001;
    await cache.findBySecret("ck_a");
    expect(lookups).toEqual(["ck_a", "ck_a"]);
  });

  it("when a key is cached, then it is answered at once, not as a promise; a lookup is a promise", async () => {
    const { store } = fakeStore({ ck_a: record("a") });
    const cache = new CachedApiKeys(store, 1000);
    const first = cache.findBySecret("ck_a");
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(cache.findBySecret("ck_a")).toEqual(record("a"));
  });

  it("when one uncached key is asked for by many requests at once, then the store is read once for all of them", async () => {
    const { store, lookups } = fakeStore({ ck_a: record("a") });
    const cache = new CachedApiKeys(store, 1000);
    const found = await Promise.all([1, 2, 3].map(async () => cache.findBySecret("ck_a")));
    expect(found.map((r) => r?.id)).toEqual(["a", "a", "a"]);
    expect(lookups).toEqual(["ck_a"]);
  });

  it("when a key is unknown, then it is not remembered", async () => {
    const { store, lookups } = fakeStore({});
    const cache = new CachedApiKeys(store, 1000);
    expect(await cache.findBySecret("ck_x")).toBeNull();
    expect(await cache.findBySecret("ck_x")).toBeNull();
    expect(lookups).toEqual(["ck_x", "ck_x"]);
  });

  it("when the map is full, then the least recently used entry makes room", async () => {
    const { store, lookups } = fakeStore({ ck_a: record("a"), ck_b: record("b"), ck_c: record("c") });
    const cache = new CachedApiKeys(store, 60_000, 2);
    for (const secret of ["ck_a", "ck_b", "ck_c", "ck_c", "ck_a"]) await cache.findBySecret(secret);
    expect(lookups).toEqual(["ck_a", "ck_b", "ck_c", "ck_a"]);
  });

  it("when the time is 0, then every lookup goes to the store", async () => {
    const { store, lookups } = fakeStore({ ck_a: record("a") });
    const cache = new CachedApiKeys(store, 0);
    await cache.findBySecret("ck_a");
    await cache.findBySecret("ck_a");
    expect(lookups).toHaveLength(2);
  });

  it("when a key is forgotten, then its next lookup goes to the store; other keys stay cached", async () => {
    const { store, lookups } = fakeStore({ ck_a: record("a"), ck_b: record("b") });
    const cache = new CachedApiKeys(store, 60_000);
    for (const secret of ["ck_a", "ck_b"]) await cache.findBySecret(secret);
    cache.forget("a");
    for (const secret of ["ck_a", "ck_b"]) await cache.findBySecret(secret);
    expect(lookups).toEqual(["ck_a", "ck_b", "ck_a"]);
  });
});
