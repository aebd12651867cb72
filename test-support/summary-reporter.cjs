// Prints one plain closing line ("jest: N passed, N failed, N skipped") that any CI log reader
// understands, after jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    process.stdout.write(`\njest: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`);
  }
}
module.exports = SummaryReporter;
