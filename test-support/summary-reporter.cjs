// Jest's summary, then one plain closing line ("jest: N passed, N failed, N skipped") that any CI
// log reader understands, as the very last line of `npm test`: CI reads the last line. Jest always
// adds its own summary reporter after the configured ones, so a separate reporter could not print
// after it; this one is that summary (jest.config.ts lists no "default" or "summary").
const { SummaryReporter } = require(require.resolve("@jest/reporters", { paths: [require.resolve("jest")] }));

class LastLineSummaryReporter extends SummaryReporter {
  async onRunComplete(contexts, results) {
    await super.onRunComplete(contexts, results);
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    process.stdout.write(`\njest: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`);
  }
}
module.exports = LastLineSummaryReporter;
