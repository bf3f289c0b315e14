// What text a record may carry (docs/contract.md §2, §6): no control character in a short text, only TAB and LF in
// a summary or test details, TAB, LF, CR and FF in a patch; and an export cell a spreadsheet would run as a formula,
// a leading TAB or CR included, is written as text.
import { describe, expect, it } from '@jest/globals';
import { parseDelivery } from '../../shared/core/ingest/accept-delivery.ts';
import { csvCell } from '../../shared/cockpit/csv.ts';
import { toCsv } from '../../shared/core/read/exports.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../helpers/deliveries.ts';

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
