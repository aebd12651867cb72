// Jest's own per-file reporter (verbose when jest would be), listed by path in jest.config.ts
// instead of as "default", because "default" also makes jest print its summary after every other
// reporter, and the summary reporter of ours has to be the last to print (see summary-reporter.cjs).
const { DefaultReporter, VerboseReporter } = require(
  require.resolve("@jest/reporters", { paths: [require.resolve("jest")] }),
);

module.exports = function ProgressReporter(globalConfig) {
  return globalConfig.verbose ? new VerboseReporter(globalConfig) : new DefaultReporter(globalConfig);
};
