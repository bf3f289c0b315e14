import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { Stack } from 'aws-cdk-lib';
import { ConfigError, parseConfig, readConfigFile } from '#schema/config.ts';
import { CONFIG_CONTEXT_KEY, DEPLOY_CONFIG_OPTION, deploymentConfigPath } from '#infra/aws/deployment-config.ts';
import { localPaths } from '#infra/local/paths.ts';
import { EXAMPLE_CONFIG_PATH, exampleConfig, PROJECT_ROOT, synthesize } from './synth.ts';

const scratch = mkdtempSync(join(tmpdir(), 'replay-config-'));
const writeConfig = (name: string, value: unknown) => {
  const path = join(scratch, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};
/** A project root of its own, so the developer's replay.config.json never decides a test. */
const freshRoot = (withOwnConfig: boolean) => {
  const root = mkdtempSync(join(tmpdir(), 'replay-root-'));
  copyFileSync(EXAMPLE_CONFIG_PATH, join(root, 'replay.config.example.json'));
  if (withOwnConfig)
    writeFileSync(join(root, 'replay.config.json'), JSON.stringify({ spaces: { Own: { senders: ['mac-studio-1'] } } }));
  return root;
};
const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

/** The real `cdk synth` entry point, as `cdk` runs it, with its own cloud assembly folder. */
const runSynth = (env: Record<string, string>, context: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'infra/aws/app.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      REPLAY_CONFIG: '',
      CDK_CONTEXT_JSON: JSON.stringify(context),
      CDK_OUTDIR: mkdtempSync(join(scratch, 'cdk.out-')),
      ...env,
    },
    encoding: 'utf8',
  });

describe('the configuration file cdk reads', () => {
  it('is named nowhere in cdk.json, so a plain deploy never picks the committed example', () => {
    const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
      app: string;
      context: Record<string, unknown>;
    };
    expect(cdkJson.context[CONFIG_CONTEXT_KEY]).toBeUndefined();
    expect(cdkJson.app).toBe('npx tsx infra/aws/app.ts');
  });

  it('is replay.config.json at the project root by default, like local mode', () => {
    const root = freshRoot(true);
    expect(deploymentConfigPath(undefined, {}, root)).toBe(join(root, 'replay.config.json'));
  });

  it('is the file REPLAY_CONFIG names, the same one local mode runs', () => {
    const path = writeConfig('named.json', { spaces: { Named: { senders: ['mac-studio-1'] } } });
    expect(deploymentConfigPath(undefined, { REPLAY_CONFIG: path }, freshRoot(true))).toBe(path);
    expect(localPaths({ REPLAY_CONFIG: path }).configPath).toBe(path);
  });

  it('is the file -c replayConfig names, relative to the project root, before anything else', () => {
    const root = freshRoot(true);
    expect(
      deploymentConfigPath('replay.config.example.json', { REPLAY_CONFIG: join(root, 'replay.config.json') }, root),
    ).toBe(join(root, 'replay.config.example.json'));
  });

  it('when absent, stops with a sentence naming the file it looked for and how to deploy the example on purpose', () => {
    const root = freshRoot(false);
    const message = messageOf(() => deploymentConfigPath(undefined, {}, root));
    expect(message).toContain(`looked for ${join(root, 'replay.config.json')}`);
    expect(message).toContain('-c replayConfig=replay.config.example.json');
    expect(
      messageOf(() => deploymentConfigPath(undefined, { REPLAY_CONFIG: join(scratch, 'absent.json') }, root)),
    ).toBe(`No configuration file at ${join(scratch, 'absent.json')} (named by REPLAY_CONFIG).`);
    expect(messageOf(() => deploymentConfigPath('absent.json', {}, root))).toBe(
      `No configuration file at ${join(root, 'absent.json')} (named by -c replayConfig=absent.json).`,
    );
  });

  it('names the option of the command that reads it: `npm run deploy` takes --config, never -c', () => {
    const root = freshRoot(false);
    const message = messageOf(() => deploymentConfigPath(undefined, {}, root, DEPLOY_CONFIG_OPTION));
    expect(message).toContain('REPLAY_CONFIG=FILE or --config FILE');
    expect(message).toContain('takes --config replay.config.example.json');
    expect(message).not.toContain('-c ');
  });

  it('is never the committed example through REPLAY_CONFIG, which a shell may still hold from local mode', () => {
    const root = freshRoot(true);
    expect(
      messageOf(() =>
        deploymentConfigPath(undefined, { REPLAY_CONFIG: join(root, 'replay.config.example.json') }, root),
      ),
    ).toMatch(/names the committed example .*-c replayConfig=replay\.config\.example\.json/);
  });

  it('when missing, stops the real synth with that sentence and no stack trace', () => {
    const absent = join(scratch, 'nowhere.json');
    const run = runSynth({ REPLAY_CONFIG: absent });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`No configuration file at ${absent} (named by REPLAY_CONFIG).`);
  });

  it("when wrong, stops the synth with the schema's sentence naming the key, and no stack trace", () => {
    const bad = { spaces: { SmallModelsMeasurements: { senders: ['mac-studio-1'], judge: { dailyCapp: 10 } } } };
    const path = writeConfig('typo.json', bad);
    const run = runSynth({}, { [CONFIG_CONTEXT_KEY]: path });
    expect(run.status).toBe(1);
    const expected = messageOf(() => parseConfig(bad, `configuration file ${path}`));
    expect(expected).toContain('dailyCapp');
    expect(run.stderr.trim()).toBe(expected);
  });

  it('that is not JSON is named in the error', () => {
    expect(() => readConfigFile(writeConfig('broken.json', '{"spaces": '))).toThrow(/broken\.json is not valid JSON/);
  });
});

describe('a large configuration', () => {
  it('of 200 spaces synthesizes, each function carrying all of it (no environment-size limit)', () => {
    const spaces = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [
        `Space-${i}`,
        { senders: [`mac-studio-${i % 20}`, `mac-mini-${i % 20}`], repos: ['acme/widgets'] },
      ]),
    );
    const config = parseConfig({ spaces, cockpits: { Board: { space: 'Space-0' } } });
    expect(JSON.stringify(config).length).toBeGreaterThan(20_000);
    const { bundledConfigs } = synthesize(config);
    const full = [...bundledConfigs.values()].filter((c) => Object.keys(c.spaces).length === 200);
    expect(full).toHaveLength(4); // ingest, judge, sweeper, snapshot compactor; the cockpit's read API gets its own space only
  });
});

describe('a judged space without a repository list', () => {
  const warnings = (config: ReturnType<typeof parseConfig>) => {
    const { app } = synthesize(config);
    return Annotations.fromStack(app.node.findChild('ReplayBench-Pipeline') as Stack).findWarning(
      '*',
      Match.stringLikeRegexp('lists no "repos"'),
    );
  };

  it('is named in a synth warning that says what its judge may fetch', () => {
    const found = warnings(
      parseConfig({
        spaces: {
          Open: { senders: ['mac-studio-1'] },
          Listed: { senders: ['mac-studio-1'], repos: ['acme/widgets'] },
          Unjudged: { senders: ['mac-studio-1'], judge: { dailyCap: 0 } },
        },
      }),
    );
    expect(found.map((w) => String(w.entry.data))).toEqual([
      expect.stringMatching(/^Space Open is judged but lists no "repos": .*private ones included/),
    ]);
  });

  it('is not in the committed example, which lists its repositories and says whether its cockpit shows fixes', () => {
    const written = JSON.parse(readFileSync(EXAMPLE_CONFIG_PATH, 'utf8'));
    expect(written.spaces.SmallModelsMeasurements.repos).toEqual(['acme/widgets']);
    expect(written.cockpits.SmallModelsBenchmarks).toMatchObject({ public: false, showReference: true });
    expect(warnings(exampleConfig())).toEqual([]);
  });
});

describe('a space that still takes v1 signatures', () => {
  it('is named in a synth warning that says what a v1 signature lets an attacker replay and how to end it', () => {
    const { app } = synthesize(
      parseConfig({
        spaces: {
          Migrating: { senders: ['mac-studio-1'], repos: ['acme/widgets'], acceptV1Until: '2027-01-31' },
          Current: { senders: ['mac-studio-1'], repos: ['acme/widgets'] },
        },
      }),
    );
    const found = Annotations.fromStack(app.node.findChild('ReplayBench-Pipeline') as Stack).findWarning(
      '*',
      Match.stringLikeRegexp('v1 signatures'),
    );
    expect(found.map((w) => String(w.entry.data))).toEqual([
      expect.stringMatching(
        /^Space Migrating accepts v1 signatures through 2027-01-31 .* replayed.*remove acceptV1Until/,
      ),
    ]);
  });
});
