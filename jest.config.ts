import type { Config } from "jest";

// TypeScript is transformed by swc (no type-check: `npm test` runs `tsc -b` first) into native ES
// modules, because node-llama-cpp is ESM-only; jest therefore runs with --experimental-vm-modules.
const swc = [
  "@swc/jest",
  { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "es6" } },
] as const;

const shared = {
  extensionsToTreatAsEsm: [".ts"],
  transform: { "^.+\\.ts$": swc },
  // Sources import siblings as `./x.js` (NodeNext); map those to the .ts files.
  moduleNameMapper: {
    "^(\\.{1,2}/.*)\\.js$": "$1",
    // Workspace packages by name, to their sources (each package.json's `exports`, with src/ for dist/).
    "^@chorus/(contracts|client|local-runtime|audio)$": "<rootDir>/packages/$1/src/index.ts",
    "^@chorus/platform/([a-z-]+)$": "<rootDir>/packages/platform/src/$1/index.ts",
    "^@chorus/(gateway|worker)$": "<rootDir>/apps/$1/src/index.ts",
    "^@chorus/(gateway|worker)/(llm|speech|middleware)$": "<rootDir>/apps/$1/src/exports/$2.ts",
  },
  testEnvironment: "node",
  modulePathIgnorePatterns: ["<rootDir>/.*/dist/"],
};

/**
 * The suites that hold the public contract (submit, status, waiting, streams, listing, limits, keys,
 * cancel, idempotency, speech, webhooks, usage, budgets, the lost-job sweep, the SDK), run a second time on a
 * private three-master Redis Cluster: what a managed cluster-mode Redis gives an operator.
 */
const ON_REDIS_CLUSTER = [
  "apps/gateway/test/status.int.test.ts",
  "apps/gateway/test/prefer-wait.int.test.ts",
  "apps/gateway/test/status-stream-worker.int.test.ts",
  "apps/gateway/test/requests-list.int.test.ts",
  "apps/gateway/test/batch-status.int.test.ts",
  "apps/gateway/test/queue-position.int.test.ts",
  "apps/gateway/test/fair-turns.int.test.ts",
  "apps/gateway/test/holding-caps.int.test.ts",
  "apps/gateway/test/webhook-address.int.test.ts",
  "apps/gateway/test/rate-limit.int.test.ts",
  "apps/gateway/test/auth.int.test.ts",
  "apps/gateway/test/admin.int.test.ts",
  "apps/gateway/test/usage.int.test.ts",
  "apps/gateway/test/backpressure-idempotency.int.test.ts",
  "apps/gateway/test/fault-injection.split-writes.int.test.ts",
  "apps/worker/test/text-generation-flow.int.test.ts",
  "apps/worker/test/text-control.int.test.ts",
  "apps/worker/test/speech-flow.int.test.ts",
  "apps/worker/test/streamed-speech.int.test.ts",
  "apps/worker/test/speak-on-completion.int.test.ts",
  "apps/worker/test/api-key-usage.int.test.ts",
  "apps/worker/test/usage-budgets-settle.int.test.ts",
  "packages/platform/test/usage-budget-ledger.int.test.ts",
  "apps/gateway/test/usage-budgets.int.test.ts",
  "packages/platform/test/usage-meter.int.test.ts",
  "apps/worker/test/webhooks.int.test.ts",
  "apps/worker/test/fault-injection.lost-jobs.int.test.ts",
  "apps/worker/test/routing-store.int.test.ts",
  "packages/client/test/client.int.test.ts",
];

const config: Config = {
  // Jest's own reporters, by path so that the summary (with the "jest: N passed" line CI reads) is last.
  reporters: ["<rootDir>/test-support/progress-reporter.cjs", "<rootDir>/test-support/summary-reporter.cjs"],
  // Global only (jest ignores it inside projects). Integration tests run a real model on shared,
  // noisy 2-core machines: generous limits guard against hangs, they do not measure speed.
  testTimeout: 60_000,
  projects: [
    {
      ...shared,
      displayName: "unit",
      testMatch: ["<rootDir>/{apps,packages}/*/src/**/*.test.ts", "<rootDir>/bench/src/**/*.test.ts"],
    },
    {
      ...shared,
      displayName: "integration",
      testMatch: [
        "<rootDir>/{apps,packages}/*/test/**/*.int.test.ts",
        "<rootDir>/bench/test/**/*.int.test.ts",
        "<rootDir>/examples/test/**/*.int.test.ts",
        "<rootDir>/deploy/test/**/*.int.test.ts",
        "<rootDir>/docs/test/**/*.int.test.ts",
      ],
    },
    {
      ...shared,
      displayName: "cluster",
      testMatch: [
        ...ON_REDIS_CLUSTER.map((path) => `<rootDir>/${path}`),
        "<rootDir>/test-support/cluster/*.int.test.ts",
      ],
      testEnvironment: "<rootDir>/test-support/cluster/redis-cluster.environment.cjs",
    },
  ],
};

export default config;
