// Reading a SWE-bench harness eval log (the per-instance `*.eval.log` the 2024 harness wrote, as kept in
// aorwall/SWE-bench-docker) back into each named test's pass or fail. The harness parsed the test runner's
// output after the candidate patch was applied with the parser of the task's repository (pytest's `-rA`
// summary, Django's `... ok` lines, sympy's own runner); these are the same rules, so a test passes here
// exactly when it passed for the harness. A log in which the tests never ran (patch not applied, tests
// errored or timed out) gives no per-test result.

export type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'XFAIL';
const STATUSES: readonly TestStatus[] = ['PASSED', 'FAILED', 'SKIPPED', 'ERROR', 'XFAIL'];

/** The markers the harness writes; the test output follows the last "applied (pred)" one. */
const APPLIED_CANDIDATE = '>>>>> Applied Patch (pred)';
const TESTS_DID_NOT_RUN = [
  '>>>>> Patch Apply Failed',
  '>>>>> Tests Errored',
  '>>>>> Tests Timed Out',
  '>>>>> Reset Failed',
  '>>>>> Init Failed',
  'Failed to reset task environment',
];

type Parser = (output: string) => Map<string, TestStatus>;

const startsWithStatus = (line: string) => STATUSES.find((s) => line.startsWith(s)) ?? null;

/** pytest's `-rA` short summary: `PASSED path::test`, `FAILED path::test - reason`. */
const pytest: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  for (const raw of output.split('\n')) {
    const status = startsWithStatus(raw);
    if (!status) continue;
    const line = status === 'FAILED' ? raw.replaceAll(' - ', ' ') : raw;
    const name = line.split(/\s+/)[1];
    if (name) statuses.set(name, status);
  }
  return statuses;
};

/** pytest with parametrised names that hold a path: the harness keeps only the path's last part. */
const pytestOptions: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  for (const [name, status] of pytest(output)) {
    const option = /^(.*?)\[(.*)\]/.exec(name);
    if (!option) {
      statuses.set(name, status);
      continue;
    }
    const main = option[1]!;
    const value = option[2]!;
    const kept =
      value.startsWith('/') && !value.startsWith('//') && !value.includes('*') ? `/${value.split('/').at(-1)}` : value;
    statuses.set(`${main}[${kept}]`, status);
  }
  return statuses;
};

/** Later pytest output: colour codes and control characters removed, and `path::test PASSED` lines too. */
const pytestV2: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  for (const raw of output.split('\n')) {
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\[(\d+)m/g, '').replace(/[\u0001-\u001f]/g, '');
    const status = startsWithStatus(line);
    if (status) {
      const name = (status === 'FAILED' ? line.replaceAll(' - ', ' ') : line).split(/\s+/)[1];
      if (name) statuses.set(name, status);
      continue;
    }
    const trailing = STATUSES.find((s) => line.endsWith(s));
    const parts = line.split(/\s+/);
    if (trailing && parts.length >= 2) statuses.set(parts[0]!, parts[1] as TestStatus);
  }
  return statuses;
};

const matplotlib: Parser = (output) =>
  pytest(output.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'));

const seaborn: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  for (const line of output.split('\n')) {
    const parts = line.split(/\s+/);
    if (line.startsWith('FAILED') && parts[1]) statuses.set(parts[1], 'FAILED');
    else if (line.includes(' PASSED ') && parts[1] === 'PASSED') statuses.set(parts[0]!, 'PASSED');
    else if (line.startsWith('PASSED') && parts[1]) statuses.set(parts[1], 'PASSED');
  }
  return statuses;
};

/** Django's runner at verbosity 2: `test_x (app.tests.Case) ... ok`, with `FAIL:`/`ERROR:` headers. */
const django: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  let previous: string | null = null;
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line.includes('--version is equivalent to version'))
      statuses.set('--version is equivalent to version', 'PASSED');
    if (line.includes(' ... ')) previous = line.split(' ... ')[0]!;
    const passed = [' ... ok', ' ... OK', ' ...  OK'].find((suffix) => line.endsWith(suffix));
    if (passed) statuses.set(line.slice(0, line.lastIndexOf(passed)), 'PASSED');
    if (line.includes(' ... skipped')) statuses.set(line.split(' ... skipped')[0]!, 'SKIPPED');
    if (line.endsWith(' ... FAIL')) statuses.set(line.split(' ... FAIL')[0]!, 'FAILED');
    if (line.startsWith('FAIL:')) statuses.set(line.split(/\s+/)[1]!, 'FAILED');
    if (line.endsWith(' ... ERROR')) statuses.set(line.split(' ... ERROR')[0]!, 'ERROR');
    if (line.startsWith('ERROR:')) statuses.set(line.split(/\s+/)[1]!, 'ERROR');
    // Output printed between a test's name and its result puts the "ok" on a line of its own.
    if (line.startsWith('ok') && previous !== null) statuses.set(previous, 'PASSED');
  }
  return statuses;
};

/** sympy's runner: `test_name ok`, `test_name F`, `test_name E`, and `___ path.py:test_name ___` headers. */
const sympy: Parser = (output) => {
  const statuses = new Map<string, TestStatus>();
  for (const m of output.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) statuses.set(`${m[2]}.py:${m[3]}`, 'FAILED');
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    const name = line.split(/\s+/)[0]!;
    if (line.endsWith(' E')) statuses.set(name, 'ERROR');
    if (line.endsWith(' F')) statuses.set(name, 'FAILED');
    if (line.endsWith(' ok')) statuses.set(name, 'PASSED');
  }
  return statuses;
};

/** The SWE-bench Lite repositories and the parser the harness used for each. */
export const PARSER_OF_REPO: Record<string, Parser> = {
  'astropy/astropy': pytestV2,
  'django/django': django,
  'marshmallow-code/marshmallow': pytest,
  'matplotlib/matplotlib': matplotlib,
  'mwaskom/seaborn': seaborn,
  'pallets/flask': pytest,
  'psf/requests': pytestOptions,
  'pvlib/pvlib-python': pytest,
  'pydata/xarray': pytest,
  'pydicom/pydicom': pytestOptions,
  'pylint-dev/astroid': pytest,
  'pylint-dev/pylint': pytestOptions,
  'pytest-dev/pytest': pytest,
  'pyvista/pyvista': pytest,
  'scikit-learn/scikit-learn': pytestV2,
  'sphinx-doc/sphinx': pytestV2,
  'sqlfluff/sqlfluff': pytest,
  'sympy/sympy': sympy,
};

/** Each test's status after the candidate patch, or null when the tests did not run (or the repo is unknown). */
export function testStatuses(repo: string, log: string): Map<string, TestStatus> | null {
  const parse = Object.hasOwn(PARSER_OF_REPO, repo) ? PARSER_OF_REPO[repo]! : null;
  if (!parse || !log.includes(APPLIED_CANDIDATE) || TESTS_DID_NOT_RUN.some((m) => log.includes(m))) return null;
  return parse(log.slice(log.lastIndexOf(APPLIED_CANDIDATE) + APPLIED_CANDIDATE.length));
}

export interface PerTestResult {
  /** Named tests that passed (the harness counts an expected failure, XFAIL, as passing). */
  passedTests: string[];
  /** Named tests that did not pass: failed, errored, skipped, or absent from the output. */
  failedTests: string[];
  /** The harness's own verdict from these statuses: every FAIL_TO_PASS and PASS_TO_PASS test passed. */
  resolved: boolean;
}

/**
 * The task's FAIL_TO_PASS and PASS_TO_PASS tests split into passed and failed, in the task's order, or null
 * when the log gives no test statuses. `resolved` applies the harness's rule: a test that did not run
 * counts as failed, a skipped one counts neither way.
 */
export function perTestResult(
  repo: string,
  log: string,
  failToPass: readonly string[],
  passToPass: readonly string[],
): PerTestResult | null {
  const statuses = testStatuses(repo, log);
  if (!statuses) return null;
  const passed = (name: string) => ['PASSED', 'XFAIL'].includes(statuses.get(name) ?? '');
  const failed = (name: string) => !statuses.has(name) || ['FAILED', 'ERROR'].includes(statuses.get(name)!);
  const named = [...new Set([...failToPass, ...passToPass])];
  return {
    passedTests: named.filter(passed),
    failedTests: named.filter((n) => !passed(n)),
    resolved: named.every((n) => !failed(n)),
  };
}
