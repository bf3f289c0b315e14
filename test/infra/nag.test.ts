import { readFileSync } from 'node:fs';
import { Validations } from 'aws-cdk-lib';
import { describe, expect, it } from '@jest/globals';
import { richConfig, synthesize } from './synth.ts';

// One synth with AwsSolutionsChecks over a configuration that has every kind of resource: a signed-in
// and a published cockpit, two key prefixes. `cdk synth` runs the same checks on the real configuration.
const { app } = synthesize(richConfig(), { checks: true });
const assembly = app.synth();

describe('cdk-nag AwsSolutions', () => {
  it('reports no finding that is not acknowledged', () => {
    const report = JSON.parse(readFileSync(`${assembly.directory}/validation-report.json`, 'utf8')) as { pluginReports: { violations?: unknown[] }[] };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
  });

  it('carries a reason a reviewer can check with every acknowledgement', () => {
    const acknowledged = app.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY).map((m) => [c.node.path, m.data as Record<string, string>] as const))
      .flatMap(([path, rules]) => Object.entries(rules).map(([id, reason]) => ({ path, id, reason })));
    expect(acknowledged.length).toBeGreaterThan(10);
    // aws-cdk-lib records a plain rule id (the form cdk-nag's README uses and reads back) as `Annotation::`.
    for (const { path, id, reason } of acknowledged) {
      expect({ path, id }).toEqual({ path, id: expect.stringMatching(/^Annotation::AwsSolutions-[A-Z]+\d+(\[.+\])?$/) });
      expect({ path, id, reason }).toEqual({ path, id, reason: expect.stringMatching(/^[\s\S]{60,}$/) });
    }
  });

  it('leaves no finding acknowledged for a whole stack', () => {
    const stackLevel = app.node.children.flatMap((stack) => stack.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY));
    expect(stackLevel).toEqual([]);
  });
});
