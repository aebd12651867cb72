import { describe, expect, it } from "@jest/globals";
import { hostAllowed } from "./webhook-hosts.js";

const HOSTS = ["hooks.a.example", "*.b.example", "203.0.113.7", "[2001:db8::1]"];

describe("hostAllowed", () => {
  it.each([
    "hooks.a.example",
    "HOOKS.A.example",
    "hooks.a.example.",
    "x.b.example",
    "deep.x.b.example",
    "203.0.113.7",
    "[2001:db8:0::1]",
  ])("when the host is %s, then it is one of the key's hosts", (host) => {
    expect(hostAllowed(HOSTS, host)).toBe(true);
  });

  it.each([
    "a.example",
    "evilhooks.a.example",
    "hooks.a.example.evil",
    "b.example",
    "xb.example",
    "203.0.113.8",
    "[2001:db8::2]",
    "hooks.a.example:80",
  ])("when the host is %s, then it is not", (host) => {
    expect(hostAllowed(HOSTS, host)).toBe(false);
  });

  it("when the list is empty, then no host is", () => {
    expect(hostAllowed([], "hooks.a.example")).toBe(false);
  });
});
