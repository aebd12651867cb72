/**
 * What the gateway accepts as a request id (the ids it hands out are UUIDs): anything else is
 * answered as unknown without a Redis look-up.
 */
const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;

export function isRequestId(value: string): boolean {
  return REQUEST_ID.test(value);
}

/** The id shape in words, for error messages and documentation. */
export const REQUEST_ID_SHAPE = "1 to 64 letters, digits or '-'";
