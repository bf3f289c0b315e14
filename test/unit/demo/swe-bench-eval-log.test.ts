// The demo data builder reads each named test's pass or fail out of real SWE-bench harness eval logs
// (test/fixtures/swe-bench-eval-logs/README.md says where they come from), by the harness's own rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { perTestResult, testStatuses } from '#demo/swe-bench-eval-log.ts';
import { stratifiedSample, trajectoryFigures } from '#demo/build-data.ts';

const log = (name: string) =>
  readFileSync(join(import.meta.dirname, '../../fixtures/swe-bench-eval-logs', name), 'utf8');

describe('reading a SWE-bench eval log', () => {
  it('splits a pytest -rA summary into passed and failed tests, in the order the task names them', () => {
    const separable = (name: string) => `astropy/modeling/tests/test_separable.py::${name}`;
    const result = perTestResult(
      'astropy/astropy',
      log('astropy__astropy-12907.20240402_sweagent_gpt4.eval.log'),
      [separable('test_separable[compound_model6-result6]'), separable('test_separable[compound_model9-result9]')],
      [separable('test_coord_matrix'), separable('test_cstack'), separable('test_custom_model_separable')],
    );
    expect(result).toEqual({
      passedTests: [separable('test_coord_matrix'), separable('test_custom_model_separable')],
      failedTests: [
        separable('test_separable[compound_model6-result6]'),
        separable('test_separable[compound_model9-result9]'),
        separable('test_cstack'),
      ],
      resolved: false,
    });
  });

  it("reads Django's verbose runner, and counts a named test missing from the output as failed", () => {
    const result = perTestResult(
      'django/django',
      log('django__django-11001.gpt-4-0125-preview.eval.log'),
      [
        'test_order_by_multiline_sql (expressions.tests.BasicExpressionsTests)',
        'test_order_of_operations (expressions.tests.BasicExpressionsTests)',
      ],
      ['test_outerref (expressions.tests.BasicExpressionsTests)', 'test_not_in_this_excerpt (expressions.tests.X)'],
    );
    expect(result).toEqual({
      passedTests: [
        'test_order_by_multiline_sql (expressions.tests.BasicExpressionsTests)',
        'test_order_of_operations (expressions.tests.BasicExpressionsTests)',
        'test_outerref (expressions.tests.BasicExpressionsTests)',
      ],
      failedTests: ['test_not_in_this_excerpt (expressions.tests.X)'],
      resolved: false,
    });
  });

  it("reads sympy's runner: `name ok` passes, `name F` fails, and a line ending in [FAIL] is no pass", () => {
    const statuses = testStatuses('sympy/sympy', log('sympy__sympy-20590.20240402_sweagent_gpt4.eval.log'))!;
    expect(statuses.get('test_immutable')).toBe('FAILED');
    expect(statuses.get('test_structure')).toBe('PASSED');
    expect(statuses.get('test_replace_exceptions')).toBeUndefined();
    const result = perTestResult(
      'sympy/sympy',
      log('sympy__sympy-20590.20240402_sweagent_gpt4.eval.log'),
      ['test_immutable'],
      ['test_S', 'test_xreplace'],
    );
    expect(result).toEqual({
      passedTests: ['test_S', 'test_xreplace'],
      failedTests: ['test_immutable'],
      resolved: false,
    });
  });

  it('gives no per-test result when the patch did not apply, or for a repository it has no parser for', () => {
    expect(testStatuses('django/django', log('django__django-13757.gpt-4-0125-preview.eval.log'))).toBeNull();
    expect(testStatuses('acme/widgets', log('astropy__astropy-12907.20240402_sweagent_gpt4.eval.log'))).toBeNull();
  });

  it('reads only the output after the candidate patch was applied', () => {
    const text = log('django__django-11001.gpt-4-0125-preview.eval.log');
    const before = 'test_only_before_the_patch (x.Y) ... ok\n';
    const marker = '>>>>> Applied Patch (pred)\n';
    const statuses = testStatuses('django/django', text.replace(marker, before + marker))!;
    expect(statuses.has('test_only_before_the_patch (x.Y)')).toBe(false);
    expect(statuses.get('test_outerref (expressions.tests.BasicExpressionsTests)')).toBe('PASSED');
  });
});

describe('the demo data builder', () => {
  it('samples tasks so that each outcome pattern keeps its share', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `t-${i}`);
    const patternOf = (id: string) => (Number(id.slice(2)) % 4 === 0 ? 'resolved' : 'unresolved');
    const sample = stratifiedSample(ids, patternOf, 50);
    expect(sample).toHaveLength(50);
    expect(sample.filter((id) => patternOf(id) === 'resolved')).toHaveLength(13);
    expect(stratifiedSample(ids, patternOf, 50)).toEqual(sample);
  });

  it('reads cost, steps and wall time from a moatless trajectory, and tokens only when every call has them', () => {
    const call = { completion_cost: 0.01, input_tokens: 1000, output_tokens: 100 };
    const info = { duration: 12.5, total_cost: 0.03 };
    expect(trajectoryFigures({ transitions: [{ actions: [call, call] }, { actions: [call] }], info })).toEqual({
      costUsd: 0.03,
      promptTokens: 3000,
      completionTokens: 300,
      steps: 3,
      wallSeconds: 12.5,
    });
    const partly = trajectoryFigures({ transitions: [{ actions: [call, { completion_cost: 0.02 }] }], info: {} });
    expect(partly).toEqual({ costUsd: null, promptTokens: null, completionTokens: null, steps: 2, wallSeconds: null });
  });
});
