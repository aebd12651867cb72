export { COMMON_ENV, type CommonConfig } from "./common-env.js";
export { GATEWAY_LISTEN_ENV, WORKER_LAUNCH_ENV } from "./launch-env.js";
export { ConfigError, loadConfig, type ConfigOf, type EnvProperty, type EnvSchema } from "./load-config.js";
export { BUDGET_ENV, budgetDefaults } from "./budget-env.js";
