// The dependency tree as package-lock.json installs it: every package runs on the oldest Node the product
// supports (so `npm ci` warns of no engine), the Lambda runtime is a supported Node too, and the SDK clients
// and Powertools packages bundled into the functions are one copy each, on one shared version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import semver from 'semver';
import { FUNCTION_RUNTIME } from '#infra/aws/constructs/replay-function.ts';
import { PROJECT_ROOT } from './synth.ts';

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const oldestNode = semver.minVersion(manifest.engines.node)!.version;
const lambdaNode = `${/^nodejs(\d+)\.x$/.exec(FUNCTION_RUNTIME.name)![1]}.0.0`;

/** Every installed copy of a package: its lock path and version. */
const copiesOf = (name: string) =>
  Object.entries(lock.packages)
    .filter(([path]) => path.endsWith(`node_modules/${name}`))
    .map(([path, entry]) => ({ path, version: entry.version }));

describe('the supported Node versions', () => {
  it('are those every installed package supports, from the oldest engines admits', () => {
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range && !semver.satisfies(oldestNode, range) ? [`${path} needs Node ${range}`] : [];
    });
    expect({ oldestNode, refusing }).toEqual({ oldestNode, refusing: [] });
  });

  it('include the Lambda runtime the functions are deployed on', () => {
    expect(semver.satisfies(lambdaNode, manifest.engines.node)).toBe(true);
  });

  it('are the ones the README names', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ${semver.major(oldestNode)}.${semver.minor(oldestNode)} or later`);
    expect(readme).toContain(`\`${FUNCTION_RUNTIME.name}\``);
  });
});

/** Node's release schedule (nodejs.org/en/about/previous-releases): the day each line stops getting fixes. */
const END_OF_LIFE: Record<number, string> = { 18: '2025-04-30', 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

describe('Node past its end of life', () => {
  const today = new Date().toISOString().slice(0, 10);
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

  it('never runs the functions', () => {
    const major = semver.major(lambdaNode);
    expect({ major, endOfLife: END_OF_LIFE[major]! > today }).toEqual({ major, endOfLife: true });
  });

  it('is called so in the README while engines still admits it, with the maintained version to run instead', () => {
    const oldest = semver.major(oldestNode);
    if (END_OF_LIFE[oldest]! <= today) expect(readme).toContain(`**Node ${oldest} is past its end of life**`);
    // The version a developer's version manager picks (.nvmrc) is the one Lambda runs, and maintained.
    const pinned = Number(readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim());
    expect(pinned).toBe(semver.major(lambdaNode));
    expect(readme).toContain('nvm install && nvm use');
  });
});

describe('the packages bundled into the functions', () => {
  it('install one copy of each AWS SDK client and of lib-dynamodb, all on one version', () => {
    const packages = [
      'client-athena',
      'client-dynamodb',
      'client-s3',
      'client-sqs',
      'client-secrets-manager',
      'lib-dynamodb',
    ];
    const copies = packages.map((name) => copiesOf(`@aws-sdk/${name}`));
    for (const found of copies) expect(found).toHaveLength(1);
    expect(new Set(copies.flat().map((c) => c.version)).size).toBe(1);
  });

  it('install the Powertools packages, and the commons they share, on one version', () => {
    const copies = ['batch', 'logger', 'metrics', 'commons'].flatMap((name) =>
      copiesOf(`@aws-lambda-powertools/${name}`),
    );
    expect(copies.map((c) => c.path).filter((path) => path.endsWith('commons'))).toHaveLength(1);
    expect(new Set(copies.map((c) => c.version)).size).toBe(1);
  });
});
