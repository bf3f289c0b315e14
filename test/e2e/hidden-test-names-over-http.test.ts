// A hidden-test result that names its tests (docs/contract.md §2, §4), over local mode's HTTP server: ids over
// the bounds, of the wrong type or holding a character the text rules refuse are refused with a 400 naming the
// field and leave nothing behind; short lists stay in the row, long ones beside it, and the run's own route answers
// them whole either way.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { ROW_LIMITS } from '#core/landing/bounds.ts';
import { TEST_NAMES_MAX } from '#schema/run.ts';
import { hiddenTestDelivery, runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const KEY = 'k-studio';
let local: TestLocalMode;
beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { Tests: { senders: ['mac-studio-1'] } } }, { 'mac-studio-1': KEY });
});
afterAll(() => local.stop());

interface Result {
  status: string;
  failedTests?: string[];
  passedTests?: string[];
  testsKey?: string;
}
const getJson = async <T>(path: string) => (await (await fetch(local.url + path)).json()) as T;
const runPath = (id: string) => `/api/spaces/Tests/runs/${encodeURIComponent(id)}`;
const named = (failedTests: unknown, passedTests: unknown, id: string, finishedAt: string) => {
  const delivery = hiddenTestDelivery(id, finishedAt, 'fail');
  return { ...delivery, hiddenTestResult: { ...delivery.hiddenTestResult, failedTests, passedTests } };
};

describe('hidden-test results that name their tests', () => {
  it.each([
    ['an id over 300 characters', ['x'.repeat(301)], [], 'hiddenTestResult.failedTests.0'],
    ['an id that is not a string', ['tests/a.py::ok'], ['tests/a.py::b', 42], 'hiddenTestResult.passedTests.1'],
    ['a list that is not an array', 'tests/a.py::x', [], 'hiddenTestResult.failedTests'],
    ['a terminal escape in an id', ['tests/a.py::ok', '\u001b[31mred'], [], 'hiddenTestResult.failedTests.1'],
    ['a bidirectional override in an id', [], ['tests/a.py::\u202eevil'], 'hiddenTestResult.passedTests.0'],
    [
      'more than 2,000 ids in all',
      Array.from({ length: 1200 }, (_, i) => `f${i}`),
      Array.from({ length: 801 }, (_, i) => `p${i}`),
      'hiddenTestResult.passedTests',
    ],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_, failed, passed, field) => {
    const run = runDelivery({ taskId: `refused-${field.length}-${String(failed).length}` });
    const answer = await pushDelivery(local.url, 'Tests', named(failed, passed, run.id, run.row.finishedAt), KEY);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ signature: 'verified', error: 'invalid-delivery' });
    expect((answer.body.details as string[]).some((d) => d.startsWith(`${field}:`))).toBe(true);
    expect(await local.adapters.inbox.list('inbox/Tests/')).toEqual([]);

    await pushDelivery(local.url, 'Tests', run, KEY);
    const row = await eventually(async () => {
      const r = await fetch(local.url + runPath(run.id));
      return r.status === 200 && ((await r.json()) as { hiddenTestResult: Result | null });
    });
    expect(row.hiddenTestResult).toBeNull();
  });

  it('keeps a short list in the row, failing and passing, as sent', async () => {
    const run = runDelivery({ taskId: 'short-list' });
    const failed = ['tests/test_parse.py::test_range_end'];
    const passed = ['tests/test_parse.py::test_range_start', 'tests/test_parse.py::test_empty[a-b]'];
    await pushDelivery(local.url, 'Tests', run, KEY);
    expect(
      (await pushDelivery(local.url, 'Tests', named(failed, passed, run.id, run.row.finishedAt), KEY)).status,
    ).toBe(202);
    const listed = await eventually(async () => {
      const { runs } = await getJson<{ runs: { id: string; hiddenTestResult: Result | null }[] }>(
        '/api/spaces/Tests/runs',
      );
      return runs.find((r) => r.id === run.id && r.hiddenTestResult)?.hiddenTestResult;
    });
    expect(listed).toMatchObject({ status: 'fail', failedTests: failed, passedTests: passed });
    expect(listed!.testsKey).toBeUndefined();
  });

  it(`keeps ${TEST_NAMES_MAX} long ids beside the row, and answers them whole for the run`, async () => {
    const run = runDelivery({ taskId: 'long-list' });
    const id = (k: number) => `tests/integration/test_${'long_module_name_'.repeat(10)}${k}.py::test_case_${k}`;
    const failed = Array.from({ length: 500 }, (_, k) => id(k));
    const passed = Array.from({ length: TEST_NAMES_MAX - 500 }, (_, k) => id(500 + k));
    expect(JSON.stringify({ failed, passed }).length).toBeGreaterThan(ROW_LIMITS.testNamesBytes);
    await pushDelivery(local.url, 'Tests', named(failed, passed, run.id, run.row.finishedAt), KEY);
    await pushDelivery(local.url, 'Tests', run, KEY);

    const listed = await eventually(async () => {
      const { runs } = await getJson<{ runs: { id: string; hiddenTestResult: Result | null }[] }>(
        '/api/spaces/Tests/runs',
      );
      return runs.find((r) => r.id === run.id && r.hiddenTestResult)?.hiddenTestResult;
    });
    expect(listed).toMatchObject({ status: 'fail', testsKey: expect.stringMatching(/\/tests-[0-9a-f]{64}\.json$/) });
    expect(listed!.failedTests).toBeUndefined();
    expect(listed!.passedTests).toBeUndefined();

    const whole = (await getJson<{ hiddenTestResult: Result }>(runPath(run.id))).hiddenTestResult;
    expect(whole.failedTests).toEqual(failed);
    expect(whole.passedTests).toEqual(passed);
    expect(whole.status).toBe('fail');
  });
});
