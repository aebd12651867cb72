import { describe, expect, it } from "@jest/globals";
import { Webhook } from "standardwebhooks";
import { signatures } from "./webhook-sender.js";

const secret = (byte: number) => `whsec_${Buffer.alloc(32, byte).toString("base64")}`;

describe("signatures", () => {
  it("when a key signs with two secrets (a rotation's overlap), then the header carries both and each secret verifies", () => {
    const [older, newer] = [secret(1), secret(2)];
    const now = new Date();
    const header = signatures([newer, older], "msg_1", now, '{"id":"1"}');
    expect(header.split(" ")).toHaveLength(2);
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": header,
    };
    for (const key of [older, newer]) expect(new Webhook(key).verify('{"id":"1"}', headers)).toEqual({ id: "1" });
    expect(() => new Webhook(secret(3)).verify('{"id":"1"}', headers)).toThrow();
  });
});
