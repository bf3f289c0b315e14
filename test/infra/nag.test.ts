import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from './paths.ts';

// One synth with AwsSolutionsChecks over a configuration that has every kind of resource: a signed-in
// and a published cockpit, two key prefixes. `cdk synth` runs the same checks on the real configuration.
// The synth runs in a child process (nag-synth.ts says why); what it acknowledged is read back from the
// cloud assembly, which records every construct's metadata by construct path.
const outdir = mkdtempSync(join(tmpdir(), 'replay-nag-'));
const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/infra/nag-synth.ts'], {
  cwd: PROJECT_ROOT,
  env: { ...process.env, CDK_OUTDIR: outdir },
  encoding: 'utf8',
});
if (run.status !== 0) throw new Error(`synth failed (${run.status}): ${run.stderr}`);

interface Manifest {
  artifacts: Record<string, { type: string; additionalMetadataFile?: string }>;
}
type Metadata = Record<string, { type: string; data: unknown }[]>;
const readJson = <T>(file: string) => JSON.parse(readFileSync(join(outdir, file), 'utf8')) as T;
const stacks = Object.entries(readJson<Manifest>('manifest.json').artifacts).filter(
  ([, a]) => a.type === 'aws:cloudformation:stack',
);
const metadata = stacks.flatMap(([, a]) => Object.entries(readJson<Metadata>(a.additionalMetadataFile!)));
const acknowledgements = (entries: Metadata[string]) =>
  entries
    .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .map((m) => m.data as Record<string, string>);

describe('cdk-nag AwsSolutions', () => {
  it('reports no finding that is not acknowledged', () => {
    const report = readJson<{ pluginReports: { violations?: unknown[] }[] }>('validation-report.json');
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
  });

  it('carries a reason a reviewer can check with every acknowledgement', () => {
    const acknowledged = metadata.flatMap(([path, entries]) =>
      acknowledgements(entries).flatMap((rules) => Object.entries(rules).map(([id, reason]) => ({ path, id, reason }))),
    );
    expect(acknowledged.length).toBeGreaterThan(10);
    // aws-cdk-lib records a plain rule id (the form cdk-nag's README uses and reads back) as `Annotation::`.
    for (const { path, id, reason } of acknowledged) {
      expect({ path, id }).toEqual({
        path,
        id: expect.stringMatching(/^Annotation::AwsSolutions-[A-Z]+\d+(\[.+\])?$/),
      });
      expect({ path, id, reason }).toEqual({ path, id, reason: expect.stringMatching(/^[\s\S]{60,}$/) });
    }
  });

  it('leaves no finding acknowledged for a whole stack', () => {
    const stackPaths = stacks.map(([id]) => `/${id}`);
    const stackLevel = metadata.filter(([path]) => stackPaths.includes(path));
    // Every stack's own entries are there to look at, so finding no acknowledgement among them means something.
    expect(stackLevel.map(([path]) => path).sort()).toEqual([...stackPaths].sort());
    expect(stackLevel.flatMap(([, entries]) => acknowledgements(entries))).toEqual([]);
  });
});
