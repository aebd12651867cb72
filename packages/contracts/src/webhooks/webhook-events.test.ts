import { describe, expect, it } from "@jest/globals";
import { parseWebhookEvents, storedWebhookEvents, webhookEventOf } from "./webhook-events.js";

describe("webhook events", () => {
  it("when a record is final, then its event is completed, cancelled (an error whose finishReason says so) or error", () => {
    expect(webhookEventOf({ status: "completed" })).toBe("completed");
    expect(webhookEventOf({ status: "error", finishReason: "cancelled" })).toBe("cancelled");
    expect(webhookEventOf({ status: "error" })).toBe("error");
  });

  it("when no events were asked for, then the stored default leaves out the client's own cancel", () => {
    expect(parseWebhookEvents(storedWebhookEvents(undefined))).toEqual(["completed", "error"]);
    expect(parseWebhookEvents("")).toEqual(["completed", "error"]);
    expect(parseWebhookEvents(storedWebhookEvents(["cancelled", "completed"]))).toEqual(["cancelled", "completed"]);
  });
});
