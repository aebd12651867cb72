/**
 * `@chorus/gateway`: what tests and deployment checks assemble a gateway from (the Express app, its
 * dependencies, its settings). The process itself is `main.ts` (`@chorus/gateway/main`).
 */
export { buildApp, redisConnections, type GatewayDeps } from "./app.js";
export { GATEWAY_ENV, loadGatewayConfig, type GatewayConfig } from "./config.js";
export { createGatewayDeps } from "./dependencies.js";
