// Jest's summary, then one plain closing line ("jest: N passed, N failed, N skipped") that any CI
// log reader understands, as the very last line of `npm test`: CI reads the last line. Jest always
// adds its own summary reporter after the configured ones, so a separate reporter could not print
// after it; this one is that summary (jest.config.ts lists no "default" or "summary").
// Before it, every test skipped for a reason (its name says "[SKIPPED: why]" or "(skipped: why)")
// is listed by name: jest's non-verbose report shows only a count.
const { SummaryReporter } = require(require.resolve("@jest/reporters", { paths: [require.resolve("jest")] }));

const SAYS_WHY = /\[SKIPPED:|\(skipped:/;

/** Full names of the skipped tests whose names say why (tests left out by -t or --selectProjects do not). */
function skippedWithReasons(results) {
  const names = results.testResults.flatMap((file) =>
    file.testResults.filter((test) => test.status === "pending" || test.status === "todo").map((test) => test.fullName),
  );
  return [...new Set(names.filter((name) => SAYS_WHY.test(name)))];
}

// CI sets it: a test skipped there (no llama-server, no fixture model) is a test that did not run,
// not a pass. A developer's machine without a compiler may skip the llama-server tests and stay green.
const FAIL_ON_SKIPPED = process.env.FAIL_ON_SKIPPED_TESTS === "1";

class LastLineSummaryReporter extends SummaryReporter {
  async onRunComplete(contexts, results) {
    await super.onRunComplete(contexts, results);
    const withReasons = skippedWithReasons(results);
    for (const name of withReasons) process.stdout.write(`skipped: ${name}\n`);
    if (FAIL_ON_SKIPPED && withReasons.length > 0) {
      process.stdout.write(
        `\nFAIL_ON_SKIPPED_TESTS=1: ${withReasons.length} test(s) skipped, each named above with its reason\n`,
      );
      process.exitCode = 1; // jest leaves a successful run's exit code alone
    }
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    process.stdout.write(`\njest: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`);
  }
}
module.exports = LastLineSummaryReporter;
