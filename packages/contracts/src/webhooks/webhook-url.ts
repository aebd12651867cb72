import { ApiError } from "../errors.js";
import { refusedHostReason } from "./webhook-address.js";

const EXPECTED = "string (an http or https URL)";

function refuse(message: string): ApiError {
  return ApiError.invalidParameter("webhook", EXPECTED, `webhook ${message}`);
}

/**
 * The checks of `webhook` the schema cannot make: the scheme, credentials, and (unless
 * `allowPrivate`) a host that is this machine or its network. Throws INVALID_PARAMETER naming `webhook`.
 */
export function checkWebhookUrl(value: string, allowPrivate: boolean): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refuse(`must be an http or https URL, not ${url.protocol.slice(0, 20)}`);
  // A password in the URL would be logged and stored with the record; signatures authenticate instead.
  if (url.username !== "" || url.password !== "") throw refuse("must not carry a user name or password");
  const refused = allowPrivate ? null : refusedHostReason(url);
  if (refused)
    throw refuse(
      `is refused: ${refused} (where receivers are meant to be on this machine or a private network, the deployment sets WEBHOOK_ALLOW_PRIVATE=true)`,
    );
}
