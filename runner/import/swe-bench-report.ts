// A SWE-bench evaluation report (`report.json`, as the harness's grading writes it per instance, and as OpenHands
// keeps it under eval_outputs/) as a hidden-test result. Resolved is a pass; a patch that did not apply, or a run
// the v5 harness marks `infra_failure`, is an error (never a fail); anything else is a fail. The per-test names
// are the FAIL_TO_PASS and PASS_TO_PASS success and failure lists, kept where they fit the result's bounds.
import { TEST_NAME_MAX_CHARS, TEST_NAMES_MAX, type HiddenTestResult } from '#schema/run.ts';
import { asArray, asObject, modifiedAt, readSourceJson, SourceError } from './source-files.ts';

/** A report of this size or more is no per-instance report. */
const MAX_REPORT_BYTES = 8 * 1024 * 1024;

const names = (value: unknown) => asArray(value).filter((n): n is string => typeof n === 'string' && n.length > 0);

/** The instance's entry of a report, as a hidden-test result; null when the harness ran no tests (no patch). */
export function hiddenTestOfReport(entry: Record<string, unknown>, ranAt: string): HiddenTestResult | null {
  if (entry.patch_exists === false || entry.patch_is_None === true) return null;
  const status =
    entry.infra_failure === true || entry.patch_successfully_applied === false
      ? 'error'
      : entry.resolved === true
        ? 'pass'
        : 'fail';
  const tests = asObject(entry.tests_status);
  if (!tests) return { status, ranAt };
  const lists = ['FAIL_TO_PASS', 'PASS_TO_PASS'].map((key) => asObject(tests[key]) ?? {});
  return withTestNames(
    { status, ranAt },
    lists.flatMap((l) => names(l.success)),
    lists.flatMap((l) => names(l.failure)),
  );
}

/** A result with its counts and, where they fit the result's bounds, the names of its passed and failed tests. */
export function withTestNames(
  result: Pick<HiddenTestResult, 'status' | 'ranAt'>,
  passedTests: string[],
  failedTests: string[],
): HiddenTestResult {
  const counts = {
    passed: passedTests.length,
    failed: failedTests.length,
    total: passedTests.length + failedTests.length,
  };
  const namesFit =
    counts.total <= TEST_NAMES_MAX && [...passedTests, ...failedTests].every((n) => n.length <= TEST_NAME_MAX_CHARS);
  return namesFit
    ? { ...result, ...counts, passedTests, failedTests }
    : {
        ...result,
        ...counts,
        details: `The source names ${counts.total} tests; names over ${TEST_NAME_MAX_CHARS} characters or beyond ${TEST_NAMES_MAX} in all are not sent.`,
      };
}

/** The report file's entry for `instanceId` as a hidden-test result, `ranAt` when the report was written. */
export async function readReport(path: string, instanceId: string): Promise<HiddenTestResult | null> {
  const report = asObject(await readSourceJson(path, MAX_REPORT_BYTES));
  // The harness keys its report by instance id; some published copies hold the entry alone.
  const entry = asObject(report?.[instanceId]) ?? (report && 'resolved' in report ? report : null);
  if (!entry) throw new SourceError(path, `has no entry for "${instanceId}".`);
  return hiddenTestOfReport(entry, await modifiedAt(path));
}
