// Ends a jest run with one plain line, "jest: N passed, N failed[, N skipped]", the form CI logs are read by.
import process from 'node:process';
export default class SummaryLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`${line}\n`);
  }
}
