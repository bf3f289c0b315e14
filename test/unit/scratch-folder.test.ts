import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';

describe('the test run’s temporary files', () => {
  it('go under a folder of the run’s own, which the global teardown removes', () => {
    expect(basename(tmpdir())).toMatch(/^replay-tests-/);
    expect(existsSync(tmpdir())).toBe(true);
  });
});
