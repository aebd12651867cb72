import { ipLiteralOf, isPrivateAddress, NOT_PUBLIC } from "@chorus/contracts";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { AddressRefusedError, checkedLookup } from "./checked-lookup.js";

export interface WebhookSenderOptions {
  /** WEBHOOK_SECRET (`whsec_` + base64). */
  secret: string;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** Longest wait to connect, for the response's headers, and between pieces of its body. */
  timeoutMs: number;
}

/** What one attempt got back: the receiver's status code. */
export interface WebhookResponse {
  status: number;
}

/**
 * Signs and POSTs one webhook per Standard Webhooks: `webhook-id` (the same on every attempt),
 * `webhook-timestamp` (this attempt's) and `webhook-signature` (HMAC-SHA256 over id, timestamp and
 * body). Redirects are not followed (a 3xx is an answer like any other non-2xx).
 */
export class WebhookSender {
  private readonly signer: Webhook;
  private readonly agent: Agent;

  constructor(private readonly options: WebhookSenderOptions) {
    this.signer = new Webhook(options.secret);
    this.agent = new Agent({
      connect: { timeout: options.timeoutMs, lookup: checkedLookup(options.allowPrivate) },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(url: string, messageId: string, body: string, now = new Date()): Promise<WebhookResponse> {
    // A host written as an IP address never reaches the lookup: it is checked here. A name (even
    // `localhost`) is checked on what it resolves to, in the lookup.
    const literal = ipLiteralOf(new URL(url).hostname);
    if (!this.options.allowPrivate && literal !== null && isPrivateAddress(literal)) throw new AddressRefusedError(`${literal} is ${NOT_PUBLIC}`);
    const headers = {
      "content-type": "application/json",
      "user-agent": "Chorus-Webhooks/1",
      "webhook-id": messageId,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": this.signer.sign(messageId, now, body),
    };
    const response = await request(url, { method: "POST", headers, body, dispatcher: this.agent });
    // The body is not read, only drained, so the connection can be reused.
    await response.body.dump();
    return { status: response.statusCode };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
