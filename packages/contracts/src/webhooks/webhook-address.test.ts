import { describe, expect, it } from "@jest/globals";
import { isPrivateAddress } from "./webhook-address.js";

describe("isPrivateAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "::1",
    "0.0.0.0",
    "::",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.0.1",
    "169.254.169.254",
    "169.254.0.1",
    "100.64.0.1",
    "fc00::1",
    "fdff::1",
    "fe80::1",
  ])("when the address is %s, then it is refused", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  // Each form below carries an IPv4 that a translator, a tunnel or the kernel reaches for it.
  it.each([
    ["IPv4-mapped", "::ffff:10.0.0.1"],
    ["IPv4-mapped", "::ffff:169.254.169.254"],
    ["IPv4-mapped", "::ffff:7f00:1"],
    ["IPv4-mapped", "::ffff:100.64.0.1"],
    ["SIIT (RFC 6145)", "::ffff:0:127.0.0.1"],
    ["SIIT (RFC 6145)", "::ffff:0:a9fe:a9fe"],
    ["IPv4-compatible", "::127.0.0.1"],
    ["IPv4-compatible", "::7f00:1"],
    ["IPv4-compatible", "::a00:1"],
    ["IPv4-compatible", "::a9fe:a9fe"],
    ["IPv4-compatible, in 0.0.0.0/8", "::2"],
    ["NAT64 64:ff9b::/96", "64:ff9b::10.0.0.1"],
    ["NAT64 64:ff9b::/96", "64:ff9b::169.254.169.254"],
    ["NAT64 64:ff9b::/96", "64:ff9b::127.0.0.1"],
    ["NAT64 64:ff9b::/96", "64:ff9b::192.168.1.1"],
    ["NAT64 64:ff9b:1::/48", "64:ff9b:1::10.0.0.1"],
    ["NAT64 64:ff9b:1::/48, the IPv4 outside the /96 layout", "64:ff9b:1:a00:1::"],
    ["NAT64 64:ff9b:1::/48, the IPv4 outside the /96 layout", "64:ff9b:1:0:808:808::"],
    ["6to4", "2002:a9fe:a9fe::"],
    ["6to4", "2002:7f00:1::1"],
    ["6to4", "2002:c0a8:101:1::1"],
    ["Teredo, private server", "2001:0:a00:1::f7f7:f7f7"],
    ["Teredo, loopback client", "2001:0:4136:e378:8000:63bf:80ff:fffe"],
    ["Teredo, metadata client", "2001:0:4136:e378:8000:63bf:5601:5601"],
    ["site-local", "fec0::1"],
    ["site-local", "feff:1:2::3"],
  ])("when the address is the %s %s, then it is refused", (_form, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "172.32.0.1",
    "172.15.255.255",
    "192.169.0.1",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "::ffff:0:8.8.8.8",
    "::808:808",
    "64:ff9b::8.8.8.8",
    "64:ff9b:1::8.8.8.8",
    "2002:808:808::",
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    "hooks.example.com",
  ])("when the address is the public %s, then it is allowed", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
