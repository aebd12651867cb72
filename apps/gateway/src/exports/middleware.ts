/**
 * `@chorus/gateway/middleware`: the gateway's own request steps, for the bench's baseline servers
 * that measure what each step costs (bench/src/baselines). Loads Express and the rate limiter only.
 */
export { LimitPolicy } from "../admission/limit-policy.js";
export { authenticate, authenticatedKey } from "../middleware/authenticate.js";
export { createRateLimiters } from "../middleware/rate-limit.js";
export { requestContext } from "../middleware/request-context.js";
export { sendJson } from "../routes/send-json.js";
