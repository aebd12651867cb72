import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { checkWebhookUrl } from "./webhook-url.js";

function refusal(url: string, allowPrivate = false): ApiError | null {
  try {
    checkWebhookUrl(url, allowPrivate);
    return null;
  } catch (error) {
    return error as ApiError;
  }
}

describe("checkWebhookUrl", () => {
  it.each([
    "https://hooks.example.com/chorus",
    "http://93.184.215.14:8080/hook?x=1",
    "https://[2606:4700:4700::1111]/hook",
    // IPv6-only clusters reach public IPv4 receivers through NAT64 or 6to4.
    "http://[64:ff9b::8.8.8.8]/hook",
    "http://[2002:0808:0808::]/hook",
  ])("when the URL is %s, then it is accepted", (url) => {
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
    ["http://[::127.0.0.1]/", /refused/],
    ["http://[::ffff:0:127.0.0.1]/", /refused/],
    ["http://[64:ff9b::10.0.0.1]/", /refused/],
    ["http://[64:ff9b::169.254.169.254]/", /refused/],
    ["http://[2002:a9fe:a9fe::]/", /refused/],
    ["http://[fec0::1]/", /refused/],
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
