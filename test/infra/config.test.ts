import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig } from '../../shared/schema/config.ts';
import { CONFIG_CONTEXT_KEY, CONFIG_ENV_LIMIT_BYTES, loadDeploymentConfig } from '../../infra/aws/deployment-config.ts';
import { EXAMPLE_CONFIG_PATH, PROJECT_ROOT, synthesize } from './synth.ts';

const scratch = mkdtempSync(join(tmpdir(), 'replay-config-'));
const writeConfig = (name: string, value: unknown) => {
  const path = join(scratch, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};

describe('the configuration file', () => {
  it('is the committed example unless cdk.json says otherwise, and that example is valid', async () => {
    const cdkJson = (await import('../../cdk.json', { with: { type: 'json' } })).default as { app: string; context: Record<string, unknown> };
    expect(cdkJson.context[CONFIG_CONTEXT_KEY]).toBe('replay.config.example.json');
    expect(cdkJson.app).toBe('npx tsx infra/aws/app.ts');
    expect(() => loadDeploymentConfig(EXAMPLE_CONFIG_PATH)).not.toThrow();
  });

  it('when wrong, stops the synth with the schema\'s sentence naming the key, and no stack trace', () => {
    const bad = { spaces: { SmallModelsMeasurements: { senders: ['mac-studio-1'], judge: { dailyCapp: 10 } } } };
    const path = writeConfig('typo.json', bad);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/aws/app.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ [CONFIG_CONTEXT_KEY]: path }), CDK_OUTDIR: join(scratch, 'cdk.out') },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    let expected = '';
    try {
      parseConfig(bad, `configuration file ${path}`);
    } catch (e) {
      expected = (e as Error).message;
    }
    expect(expected).toContain('dailyCapp');
    expect(run.stderr.trim()).toBe(expected);
  });

  it('that is missing or not JSON is named in the error', () => {
    expect(() => loadDeploymentConfig(join(scratch, 'absent.json'))).toThrow(new ConfigError(`Cannot read the configuration file ${join(scratch, 'absent.json')}.`));
    expect(() => loadDeploymentConfig(writeConfig('broken.json', '{"spaces": '))).toThrow(/is not valid JSON/);
  });

  it('that cannot fit a function\'s environment fails the synth, not the deploy', () => {
    const senders = Array.from({ length: 80 }, (_, i) => `mac-studio-with-a-rather-long-name-${i}`);
    const config = parseConfig({ spaces: { Big: { senders } } });
    expect(JSON.stringify(config).length).toBeGreaterThan(CONFIG_ENV_LIMIT_BYTES);
    expect(() => synthesize(config)).toThrow(ConfigError);
    expect(() => synthesize(config)).toThrow(/function's environment/);
  });
});
