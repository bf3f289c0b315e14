// What text a record may carry (docs/contract.md §2, §6): well-formed Unicode in every string, no control character
// in a short text, only TAB and LF in a summary or test details, TAB, LF, CR and FF in a patch; and an export cell a
// spreadsheet would run as a formula, a leading TAB or CR included, is written as text.
import { describe, expect, it } from '@jest/globals';
import { parseDelivery } from '#core/ingest/accept-delivery.ts';
import { csvCell } from '#analytics/csv.ts';
import { toCsv } from '#core/read/exports.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../../../helpers/deliveries.ts';

const parsed = (delivery: unknown) => parseDelivery(Buffer.from(JSON.stringify(delivery)), 'mac-studio-1');
const refusal = (delivery: unknown) => {
  const result = parsed(delivery);
  return result.ok ? null : result.details;
};

describe('short texts', () => {
  it.each([
    { field: 'row.modelFamily', name: 'an escape sequence', delivery: runDelivery({ modelFamily: 'qwen\u001b[2J' }) },
    { field: 'row.hostHardware', name: 'a line feed', delivery: runDelivery({ hostHardware: 'Mac Studio\nM2 Ultra' }) },
    { field: 'row.quantization', name: 'a tab', delivery: runDelivery({ quantization: 'q4\tK_M' }) },
    {
      field: 'row.contamination.0.path',
      name: 'a NUL',
      delivery: runDelivery({ contamination: [{ step: 1, path: '/runs/x\u0000' }] }),
    },
    {
      field: 'row.contamination.0.reason',
      name: 'a carriage return',
      delivery: runDelivery({ contamination: [{ step: 1, path: '/runs/x', reason: 'a\rb' }] }),
    },
    {
      field: 'issue.originalFixModel',
      name: 'a C1 next-line',
      delivery: issueDelivery({ originalFixModel: 'gpt\u0085' }),
    },
  ])('refuse a control character ($name) in $field, naming it', ({ field, delivery }) => {
    expect(refusal(delivery)).toEqual([expect.stringMatching(new RegExp(`^${field.replaceAll('.', '\\.')}: `))]);
  });
});

describe('hidden-test names', () => {
  const naming = (failedTests: string[], passedTests: string[] = []) => {
    const delivery = hiddenTestDelivery('x__y__h1', '2026-11-20T10:12:00Z', 'fail');
    return { ...delivery, hiddenTestResult: { ...delivery.hiddenTestResult, failedTests, passedTests } };
  };

  it.each([
    { name: 'a NUL', test: 'tests/a.py::nul\u0000', list: 'failedTests' },
    { name: 'an escape sequence', test: '\u001b[31mtests/a.py::red\u001b[0m', list: 'failedTests' },
    { name: 'a C1 control', test: 'tests/a.py::c1\u009b', list: 'passedTests' },
    { name: 'a bidirectional override', test: 'tests/a.py::\u202eevil', list: 'passedTests' },
    { name: 'a line separator', test: 'tests/a.py::one\u2028two', list: 'failedTests' },
    { name: 'a zero-width space', test: 'tests/a.py::zero\u200bwidth', list: 'failedTests' },
  ])('refuse $name in a name, naming its list and index', ({ test, list }) => {
    const names = ['tests/a.py::ok', 'tests/a.py::fine', test];
    const delivery = list === 'failedTests' ? naming(names) : naming([], names);
    expect(refusal(delivery)).toEqual([expect.stringMatching(new RegExp(`^hiddenTestResult\\.${list}\\.2: `))]);
  });

  it('take the names test runners print: parameters, brackets, spaces and non-ASCII letters', () => {
    const names = ['tests/test_a.py::test_x[1-2]', 'test_b (tests.test_b.TestB.test_b)', 'tests/ü.py::test_ß', 'a 😀'];
    expect(parsed(naming(names, names)).ok).toBe(true);
  });
});

describe('long texts', () => {
  const details = (text: string) => ({
    ...hiddenTestDelivery('x__y__h1', '2026-11-20T10:12:00Z'),
    hiddenTestResult: { status: 'fail', ranAt: '2026-11-21T09:00:00Z', details: text },
  });

  it('keep TAB and LF in a summary and in test details', () => {
    expect(parsed(runDelivery({}, { summary: '# Fix\n\n\tIndented line.\n' })).ok).toBe(true);
    expect(parsed(details('FAILED\ttest_a\nFAILED\ttest_b\n')).ok).toBe(true);
  });

  it.each([
    { field: 'summary', name: 'a carriage return', delivery: runDelivery({}, { summary: 'Done.\r\n' }) },
    {
      field: 'summary',
      name: 'an escape sequence',
      delivery: runDelivery({}, { summary: '\u001b[32mgreen\u001b[0m' }),
    },
    { field: 'hiddenTestResult.details', name: 'a carriage return', delivery: details('line\rover') },
    { field: 'hiddenTestResult.details', name: 'a bell', delivery: details('bell\u0007') },
  ])('refuse any other control character ($name) in $field', ({ field, delivery }) => {
    expect(refusal(delivery)).toEqual([expect.stringMatching(new RegExp(`^${field.replaceAll('.', '\\.')}: `))]);
  });

  it('keep TAB, LF, CR and FF in a patch (diffs of CRLF files and page breaks), and refuse any other', () => {
    const patch = 'diff --git a/a.cs b/a.cs\n-\tint a;\r\n+\tint b;\r\n+\f\n';
    expect(parsed(runDelivery({}, { patch })).ok).toBe(true);
    expect(refusal(runDelivery({}, { patch: `${patch}+\u001b[2J\n` }))).toEqual([expect.stringMatching(/^patch: /)]);
    expect(refusal(runDelivery({}, { patch: `${patch}+\u0000\n` }))).toEqual([expect.stringMatching(/^patch: /)]);
  });
});

describe('well-formed Unicode', () => {
  // One delivery of each kind with every string field it can carry set.
  const fullRun = runDelivery({
    modelFamily: 'qwen3',
    parameters: '8B',
    activeParameters: '8B',
    quantization: 'q4_K_M',
    runtime: 'ollama',
    contamination: [{ step: 1, path: '/runs/x', reason: 'read the fix' }],
  });
  const fullIssue = issueDelivery({ originalFixModel: 'gpt-4o' });
  const fullHiddenTest = {
    ...hiddenTestDelivery('x__y__h1', '2026-11-20T10:12:00Z'),
    hiddenTestResult: {
      status: 'fail',
      ranAt: '2026-11-21T09:00:00Z',
      details: 'FAILED test_a',
      failedTests: ['tests/test_a.py::test_a'],
      passedTests: ['tests/test_b.py::test_b'],
    },
  };

  /** The path of every string in `value`, dotted as the refusal names it. */
  const stringPaths = (value: unknown, path: string[] = []): string[][] =>
    typeof value === 'string'
      ? [path]
      : value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, inner]) => stringPaths(inner, [...path, key]))
        : [];
  const withLoneSurrogate = (delivery: unknown, path: string[]): unknown => {
    const copy = structuredClone(delivery) as Record<string, unknown>;
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, copy);
    parent[path.at(-1)!] = `${String(parent[path.at(-1)!]).slice(0, 2)}\ud800${String(parent[path.at(-1)!]).slice(2)}`;
    return copy;
  };
  const cases = [fullRun, fullIssue, fullHiddenTest].flatMap((delivery) =>
    stringPaths(delivery)
      .filter((path) => path[0] !== 'kind')
      .map((path) => ({ field: path.join('.'), delivery: withLoneSurrogate(delivery, path) })),
  );

  it('covers every string field of the three delivery kinds', () => {
    expect(cases.map((c) => c.field)).toEqual(
      expect.arrayContaining(['row.model', 'row.taskId', 'row.harnessVersion', 'patch', 'summary', 'issue.taskId']),
    );
    expect(cases.length).toBeGreaterThan(25);
  });

  it.each(cases)('refuses a lone surrogate in $field, naming it', ({ field, delivery }) => {
    // JSON.stringify writes a lone surrogate as its escape, as a sender's JSON would carry it.
    expect(refusal(delivery)).toContainEqual(expect.stringMatching(new RegExp(`^${field.replaceAll('.', '\\.')}: `)));
  });

  it('takes characters outside the Basic Multilingual Plane, whose surrogates come in pairs', () => {
    expect(parsed(runDelivery({ model: 'qwen3 😀', modelFamily: '𝔮wen' }, { summary: 'Done 🎉' })).ok).toBe(true);
  });
});

describe('CSV export cells', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\t=1+1', '\r=1+1'])(
    'write %j, which a spreadsheet would run, as text',
    (value) => {
      const cell = csvCell(value);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
      expect(unquoted).toBe(`'${value}`);
    },
  );

  it('leave a plain value as it is, and quote one with a comma, quote or line break', () => {
    expect(csvCell('qwen3:8b')).toBe('qwen3:8b');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(toCsv(['model'], [{ model: '\r=HYPERLINK("x")' }])).toBe('model\r\n"\'\r=HYPERLINK(""x"")"\r\n');
  });
});
