import { ipLiteralOf, isPrivateAddress, NOT_PUBLIC } from "@chorus/contracts";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { AddressRefusedError, checkedLookup } from "./checked-lookup.js";
import { HostResolver, type HostResolverOptions } from "./webhook-dns.js";

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_MS: one attempt's whole time, from connecting to the answer's last byte. */
  timeoutMs: number;
  /** How host names are looked up (default: the system's DNS servers, 3 s). */
  dns?: HostResolverOptions;
}

/** A lookup's deadline where none is configured. */
const DNS_TIMEOUT_MS = 3000;

/** The `webhook-signature` header: one `v1,<base64>` per secret, space-separated (Standard Webhooks). */
export function signatures(secrets: readonly string[], messageId: string, now: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, now, body)).join(" ");
}

/** A longer answer's connection is closed rather than drained for reuse (undici's own default). */
const DRAIN_LIMIT_BYTES = 128 * 1024;

/** The code of the error an attempt past its deadline fails with (retried like any other failure). */
export const WEBHOOK_TIMEOUT = "ERR_WEBHOOK_TIMEOUT";

export class WebhookTimeoutError extends Error {
  readonly code = WEBHOOK_TIMEOUT;
}

/** What one attempt got back: the receiver's status code. */
export interface WebhookResponse {
  status: number;
}

/**
 * Signs and POSTs one webhook per Standard Webhooks: `webhook-id` (the same on every attempt),
 * `webhook-timestamp` (this attempt's) and `webhook-signature` (HMAC-SHA256 over id, timestamp and
 * body, with each of the secrets given: a key's, and during a rotation's overlap the one it
 * replaced). Redirects are not followed (a 3xx is an answer like any other non-2xx).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly resolver: HostResolver;

  constructor(private readonly options: WebhookSenderOptions) {
    const resolver = new HostResolver(options.dns ?? { timeoutMs: DNS_TIMEOUT_MS });
    this.resolver = resolver;
    // undici's headersTimeout and bodyTimeout restart on every byte, so a receiver answering a byte
    // at a time would hold a delivery slot for days: send() puts one deadline on the whole attempt
    // instead. The connect timeout (DNS lookup included) stays: undici applies a signal only once
    // the socket is connected.
    const lookup = checkedLookup(options.allowPrivate, resolver);
    this.agent = new Agent({ connect: { timeout: options.timeoutMs, lookup } });
  }

  async send(
    url: string,
    messageId: string,
    body: string,
    secrets: readonly string[],
    now = new Date(),
  ): Promise<WebhookResponse> {
    // A host written as an IP address never reaches the lookup: it is checked here. A name (even
    // `localhost`) is checked on what it resolves to, in the lookup.
    const literal = ipLiteralOf(new URL(url).hostname);
    if (!this.options.allowPrivate && literal !== null && isPrivateAddress(literal))
      throw new AddressRefusedError(`${literal} is ${NOT_PUBLIC}`);
    const headers = {
      "content-type": "application/json",
      "user-agent": "Chorus-Webhooks/1",
      "webhook-id": messageId,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signatures(secrets, messageId, now, body),
    };
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      // Aborting destroys the socket, whether the answer's headers or its body were still coming.
      const response = await request(url, { method: "POST", headers, body, dispatcher: this.agent, signal: deadline });
      // The body is not read, only drained, so the connection can be reused. Without the signal,
      // dump() would resolve, not reject, when the deadline cuts the body off.
      await response.body.dump({ limit: DRAIN_LIMIT_BYTES, signal: deadline });
      return { status: response.statusCode };
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new WebhookTimeoutError(`timeout: no complete answer within ${this.options.timeoutMs} ms`, {
        cause: error,
      });
    }
  }

  async close(): Promise<void> {
    this.resolver.close();
    await this.agent.close();
  }
}
