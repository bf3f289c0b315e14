import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { LocalKeySource } from '#adapters/local/env-key-source.ts';

describe('local host keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  writeFileSync(join(dir, 'Hosting__ModuleReportSecret__mac-mini-2'), 'from-file\n');

  it('reads the environment variable named after the key, ":" mapped to "__"', async () => {
    const source = new LocalKeySource(dir, { 'Hosting__ModuleReportSecret__mac-studio-1': 'from-env' });
    expect(await source.keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual(['from-env']);
  });

  it('falls back to a file of that name, trimmed', async () => {
    const source = new LocalKeySource(dir, {});
    expect(await source.keysFor('Hosting:ModuleReportSecret', 'mac-mini-2')).toEqual(['from-file']);
    expect(await source.isPaired('Hosting:ModuleReportSecret', 'mac-mini-2')).toBe(true);
  });

  it('never offers the fleet-wide value, which has no host in its name', async () => {
    const source = new LocalKeySource(dir, { Hosting__ModuleReportSecret: 'fleet' });
    expect(await source.keysFor('Hosting:ModuleReportSecret', 'nobody')).toEqual([]);
    expect(await source.isPaired('Hosting:ModuleReportSecret', 'nobody')).toBe(false);
  });
});
