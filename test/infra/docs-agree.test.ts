// docs/deploy.md says what the example configuration's templates hold: how many stacks and which, what
// teardown destroys, the alarms it pays for, where the function logs are; and the outputs files the deploy
// writes stay out of git.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { COCKPIT_STACKS } from '#infra/aws/cockpit-stack.ts';
import { ofType } from './template-queries.ts';
import { exampleConfig, PROJECT_ROOT, synthesize } from './synth.ts';

const deployDoc = readFileSync(`${PROJECT_ROOT}docs/deploy.md`, 'utf8');
const example = synthesize(exampleConfig());
const stacks = [...example.templates.keys()];

/** The text from a heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = deployDoc.indexOf(`\n${heading}\n`);
  expect({ heading, found: start >= 0 }).toEqual({ heading, found: true });
  const level = heading.split(' ')[0]!;
  const rest = deployDoc.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return next < 0 ? rest : rest.slice(0, next);
}

const NUMBER_WORDS = ['Zero', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'].concat([
  'Eleven',
  'Twelve',
  'Thirteen',
  'Fourteen',
  'Fifteen',
]);

describe('docs/deploy.md and the templates of the example configuration', () => {
  it('"What gets deployed" counts the stacks and lists each one', () => {
    const text = section('## What gets deployed');
    expect(text).toMatch(new RegExp(`^${NUMBER_WORDS[stacks.length]} stacks`, 'm'));
    const cockpitStacks = stacks.filter((name) => /^ReplayBench-Cockpits-\d+$/.test(name));
    expect(cockpitStacks).toHaveLength(COCKPIT_STACKS);
    expect(text).toContain(`\`ReplayBench-Cockpits-0\` … \`-${COCKPIT_STACKS - 1}\``);
    for (const name of stacks.filter((n) => !cockpitStacks.includes(n)))
      expect({ name, listed: text.includes(`| \`${name}\` |`) }).toEqual({ name, listed: true });
  });

  it('teardown destroys every stack', () => {
    const commands = section('## Teardown').match(/^npx cdk destroy .*$/gm) ?? [];
    const patterns = commands
      .flatMap((line) => line.replace(/#.*/, '').split(/\s+/).slice(3))
      .filter(Boolean)
      .map(
        (arg) =>
          new RegExp(
            `^${arg
              .replace(/'/g, '')
              .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '.*')}$`,
          ),
      );
    for (const name of stacks)
      expect({ name, destroyed: patterns.some((p) => p.test(name)) }).toEqual({ name, destroyed: true });
  });

  it('"What it costs" counts the alarms the example pays for', () => {
    const figures =
      /\$0\.10 per alarm \((\d+) in the pipeline, plus (\d+) per cockpit[^:]*: \$(\d+\.\d\d) for the example\)/.exec(
        deployDoc,
      );
    expect(figures).not.toBeNull();
    const [, pipeline, perCockpit, total] = figures!;
    const alarmsIn = (name: string) => ofType(example.templates.get(name)!, 'AWS::CloudWatch::Alarm').length;
    expect(Number(pipeline)).toBe(alarmsIn('ReplayBench-Pipeline'));
    expect(Number(perCockpit)).toBe(
      ofType(example.cockpitTemplate('SmallModelsBenchmarks'), 'AWS::CloudWatch::Alarm').length,
    );
    const all = stacks.reduce((sum, name) => sum + alarmsIn(name), 0);
    expect(total).toBe((all * 0.1).toFixed(2));
  });

  it('names the log groups as CloudFormation names them: after the stack, which the listing command filters on', () => {
    for (const template of example.templates.values())
      for (const [id, group] of ofType(template, 'AWS::Logs::LogGroup'))
        expect({ id, name: group.Properties.LogGroupName }).toEqual({ id, name: undefined });
    expect(deployDoc).not.toContain('/aws/lambda/<function name>');
    expect(deployDoc).toContain('aws logs describe-log-groups --log-group-name-prefix ReplayBench-Pipeline-');
  });
});

describe('the outputs files `npm run deploy` writes', () => {
  it('are ignored by git, the default one and a named deployment’s', () => {
    const ignored = execFileSync('git', ['check-ignore', 'cdk-outputs.json', 'cdk-outputs.staging.json'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    expect(ignored.trim().split('\n')).toEqual(['cdk-outputs.json', 'cdk-outputs.staging.json']);
  });
});
