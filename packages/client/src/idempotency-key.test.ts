import { newIdempotencyKey } from "./idempotency-key.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newIdempotencyKey", () => {
  it("when crypto.randomUUID exists, then its UUID is used", () => {
    expect(newIdempotencyKey()).toMatch(UUID_V4);
  });

  it("when crypto.randomUUID is missing (a page on plain http), then a v4 UUID is made from getRandomValues", () => {
    // An own property hides the prototype's method; deleting it brings the method back.
    Object.defineProperty(globalThis.crypto, "randomUUID", { value: undefined, configurable: true });
    try {
      const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
      expect(keys.size).toBe(100);
      for (const key of keys) expect(key).toMatch(UUID_V4);
    } finally {
      Reflect.deleteProperty(globalThis.crypto, "randomUUID");
    }
    expect(typeof globalThis.crypto.randomUUID).toBe("function");
  });
});
