import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { isPrivateAddress } from "./webhook-address.js";
import { checkWebhookUrl } from "./webhook-url.js";

function refusal(url: string, allowPrivate = false): ApiError | null {
  try {
    checkWebhookUrl(url, allowPrivate);
    return null;
  } catch (error) {
    return error as ApiError;
  }
}

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
    "fc00::1",
    "fdff::1",
    "fe80::1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "100.64.0.1",
  ])("when the address is %s, then it is refused", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(["8.8.8.8", "172.32.0.1", "172.15.255.255", "192.169.0.1", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("when the address is the public %s, then it is allowed", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe("checkWebhookUrl", () => {
  it.each(["https://hooks.example.com/chorus", "http://93.184.215.14:8080/hook?x=1", "https://[2606:4700:4700::1111]/hook"])("when the URL is %s, then it is accepted", (url) => {
    expect(refusal(url)).toBeNull();
  });

  it.each([
    ["ftp://example.com/x", /http or https/],
    ["mailto:someone@example.com", /http or https/],
    ["example.com/hook", /absolute/],
    ["https://user:pw@example.com/", /user name or password/],
    ["http://localhost/", /this machine/],
    ["http://LOCALHOST./", /this machine/],
    ["http://api.localhost/", /this machine/],
    ["http://[::1]/", /refused/],
    ["http://169.254.169.254/latest/meta-data/", /refused/],
  ])("when the URL is %s, then it is INVALID_PARAMETER naming webhook", (url, message) => {
    const error = refusal(url);
    expect(error?.code).toBe("INVALID_PARAMETER");
    expect(error?.details).toMatchObject({ parameter: "webhook" });
    expect(error?.message).toMatch(message);
  });

  it("when private addresses are allowed, then loopback and localhost are accepted, but the scheme is still checked", () => {
    expect(refusal("http://127.0.0.1:9000/hook", true)).toBeNull();
    expect(refusal("http://localhost:9000/hook", true)).toBeNull();
    expect(refusal("gopher://127.0.0.1/", true)?.code).toBe("INVALID_PARAMETER");
  });
});
