// The layer rules of eslint.config.js, checked against the files they guard: the core takes services as
// ports, and only the adapters and the Lambda wiring import the AWS SDK.
import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

// The probes are files that are not on disk, so no program holds them: the rules that need types stay off.
const eslint = new ESLint({
  cwd: resolve(import.meta.dirname, '../..'),
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

async function refusedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layer rules', () => {
  it.each([
    { name: 'an adapter', line: "import { S3ObjectStore } from '#adapters/aws/s3-object-store.ts';" },
    { name: 'the AWS SDK', line: "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';" },
    { name: 'the Anthropic SDK', line: "import Anthropic from '@anthropic-ai/sdk';" },
    { name: 'Octokit', line: "import { Octokit } from '@octokit/rest';" },
    { name: 'the file system', line: "import { readFileSync } from 'node:fs';" },
    { name: 'the promised file system', line: "import { readFile } from 'node:fs/promises';" },
    { name: 'HTTP', line: "import { request } from 'node:http';" },
    { name: 'HTTPS', line: "import { request } from 'node:https';" },
  ])('keep $name out of core', async ({ line }) => {
    const refused = await refusedImports('core/judge/probe.ts', `${line}\nexport const probe = 1;\n`);
    expect(refused).toHaveLength(1);
  });

  it('let core import ports, records and pure Node modules', async () => {
    const code = [
      "import type { ObjectStore } from '../ports.ts';",
      "import { runId } from '#schema/run.ts';",
      "import { gzipSync } from 'node:zlib';",
      "import { randomUUID } from 'node:crypto';",
      'export const probe = [runId, gzipSync, randomUUID] as unknown as ObjectStore;',
    ].join('\n');
    expect(await refusedImports('core/read/probe.ts', `${code}\n`)).toEqual([]);
  });

  const sdk = "import { S3Client } from '@aws-sdk/client-s3';\nexport const probe = S3Client;\n";

  it.each(['runner/probe.ts', 'shared/analytics/probe.ts', 'functions/judge/handler-probe.ts', 'dashboard/probe.ts'])(
    'refuse the AWS SDK in %s',
    async (filePath) => {
      expect(await refusedImports(filePath, sdk)).toHaveLength(1);
    },
  );

  it.each([
    'adapters/aws/probe.ts',
    'functions/judge/lambda.ts',
    'infra/aws/probe.ts',
    'bin/probe.ts',
    'bench/probe.ts',
    'test/probe.ts',
  ])('allow the AWS SDK in %s', async (filePath) => {
    expect(await refusedImports(filePath, sdk)).toEqual([]);
  });
});

describe('the room rules', () => {
  const restricted = async (filePath: string, line: string) => {
    const [result] = await eslint.lintText(`${line}\nexport const probe = x;\n`, { filePath });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
  };

  it.each([
    { from: 'dashboard/src/probe.ts', line: "import { x } from '#core/cost.ts';" },
    { from: 'dashboard/src/probe.ts', line: "import { x } from '#schema/run.ts';" },
    { from: 'dashboard/src/probe.ts', line: "import { x } from '#schema/run.ts';" },
    { from: 'shared/analytics/probe.ts', line: "import { x } from '#core/cost.ts';" },
    { from: 'shared/analytics/probe.ts', line: "import { x } from '../sha256.ts';" },
    { from: 'core/probe.ts', line: "import { x } from '#dashboard/src/widgets/format.ts';" },
  ])('refuse $line in $from', async ({ from, line }) => {
    expect(await restricted(from, line)).toHaveLength(1);
  });

  it.each([
    { from: 'dashboard/src/probe.ts', line: "import { x } from '#analytics/statistics.ts';" },
    { from: 'dashboard/src/probe.ts', line: "import type { x } from '#schema/run.ts';" },
    { from: 'shared/analytics/probe.ts', line: "import { x } from '#schema/enums.ts';" },
  ])('allow $line in $from', async ({ from, line }) => {
    expect(await restricted(from, line)).toEqual([]);
  });
});

describe('the test-file rules', () => {
  it.each(['it.only', 'describe.skip', 'test.todo'])('refuse %s left in a test file', async (call) => {
    const [result] = await eslint.lintText(
      `import { it, describe, test } from '@jest/globals';\n${call}('x', () => {});\nexport { it, describe, test };\n`,
      {
        filePath: 'test/unit/probe.test.ts',
      },
    );
    expect(result!.messages.filter((m) => m.ruleId === 'no-restricted-properties')).toHaveLength(1);
  });
});
