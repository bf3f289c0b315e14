// `npm run deploy`: the commands it runs in order, what it adds to the outputs file and prints, what stops it;
// and its bootstrap check against a stand-in speaking CloudFormation's query protocol (form-encoded POST,
// XML answers), as the SDK client sends it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { deploy, parseDeployArgs, toolkitStackReady } from '#infra/aws/operator/deploy.ts';
import type { AwsTarget } from '#infra/aws/operator/aws-target.ts';
import { ConfigError } from '#schema/config.ts';
import { readBody } from '#infra/local/stand-ins/read-body.ts';
import { tempDir } from '../helpers/run-folders.ts';

const scratch = tempDir('replay-deploy-');
const configFile = join(scratch, 'replay.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    spaces: { SmallModelsMeasurements: { senders: ['mac-studio-1'] }, 'Partner+Lab': { senders: ['mac-2'] } },
    cockpits: { SmallModelsBenchmarks: { space: 'SmallModelsMeasurements' } },
  }),
);

const TARGET: AwsTarget = { region: 'eu-west-1', regionFrom: 'AWS_DEFAULT_REGION', profile: 'default' };

/** Runs nothing; on `cdk deploy` writes the outputs file as cdk does. */
function fakeCdk(failing?: string, limit = 1000, deployedIndexes: string[] | null = null) {
  const commands: string[] = [];
  const environments: Record<string, string>[] = [];
  const printed: string[] = [];
  return {
    commands,
    environments,
    printed,
    ports: (bootstrapped: boolean) => ({
      target: async () => TARGET,
      concurrency: async () => ({ limit, unreserved: limit }),
      bootstrapped: async () => bootstrapped,
      tableIndexes: async () => deployedIndexes,
      print: (line: string) => printed.push(line),
      run: async (command: string, args: string[], env: Record<string, string>) => {
        commands.push([command, ...args].join(' '));
        environments.push(env);
        if (args[1] === failing) return 1;
        if (args[1] === 'deploy' && args.includes('--outputs-file')) {
          const file = args[args.indexOf('--outputs-file') + 1]!;
          writeFileSync(
            file,
            JSON.stringify({
              'staging-ReplayBench-Pipeline': {
                IngestUrlTemplate: 'https://ingest.bench.example.com/hooks/{space}/ingest',
              },
              'staging-ReplayBench-Cockpits-3': {
                CockpitUrlSmallModelsBenchmarks: 'https://smallmodelsbenchmarks.bench.example.com/',
              },
              'staging-ReplayBench-State': { AnalystsUserPoolId: 'eu-west-1_AbC' },
            }),
          );
        }
        return 0;
      },
    }),
  };
}

describe('npm run deploy', () => {
  it('bootstraps when needed, shows the diff, deploys with an outputs file, and prints every URL', async () => {
    const cdk = fakeCdk();
    const options = parseDeployArgs([
      '--config',
      configFile,
      '--deployment',
      'staging',
      '--outputs',
      join(scratch, 'out.json'),
    ]);
    await deploy(options, cdk.ports(false));
    const context = `-c replayConfig=${configFile} -c deployment=staging`;
    expect(cdk.commands).toEqual([
      `npx cdk bootstrap ${context}`,
      `npx cdk diff --all ${context}`,
      `npx cdk deploy --all --outputs-file ${join(scratch, 'out.json')} --require-approval broadening ${context}`,
    ]);
    const outputs = JSON.parse(readFileSync(join(scratch, 'out.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    expect(outputs.IngestUrls).toEqual({
      SmallModelsMeasurements: 'https://ingest.bench.example.com/hooks/SmallModelsMeasurements/ingest',
      'Partner+Lab': 'https://ingest.bench.example.com/hooks/Partner%2BLab/ingest',
    });
    expect(outputs['staging-ReplayBench-State']).toEqual({ AnalystsUserPoolId: 'eu-west-1_AbC' });
    expect(cdk.printed).toEqual(
      expect.arrayContaining([
        '  SmallModelsMeasurements: https://ingest.bench.example.com/hooks/SmallModelsMeasurements/ingest',
        '  SmallModelsBenchmarks: https://smallmodelsbenchmarks.bench.example.com/',
      ]),
    );
  });

  it('skips the bootstrap of a bootstrapped account, and names a named deployment its own outputs file', async () => {
    const cdk = fakeCdk();
    const options = parseDeployArgs(['--config', configFile, '--deployment', 'staging']);
    expect(options.outputsFile).toBe('cdk-outputs.staging.json');
    await deploy({ ...options, outputsFile: join(scratch, 'o2.json') }, cdk.ports(true));
    expect(cdk.commands.map((c) => c.split(' ')[2])).toEqual(['diff', 'deploy']);
    expect(parseDeployArgs([]).outputsFile).toBe('cdk-outputs.json');
  });

  it('moves a table made before the narrower indexes one index per deploy, the functions switched with both sets there', async () => {
    const cdk = fakeCdk(undefined, 1000, ['byUpdated', 'due', 'byHost']);
    await deploy({ configFile, outputsFile: join(scratch, 'o7.json') }, cdk.ports(true));
    const deploys = cdk.commands
      .filter((c) => c.startsWith('npx cdk deploy') || c.startsWith('npx cdk diff'))
      .map((c) => c.replace(` -c replayConfig=${configFile}`, ''));
    expect(deploys).toEqual([
      'npx cdk deploy ReplayBench-State -c replayIndexStep=1 --require-approval broadening',
      'npx cdk deploy ReplayBench-State -c replayIndexStep=2 --require-approval broadening',
      `npx cdk deploy --all --outputs-file ${join(scratch, 'o7.json')} -c replayIndexStep=3 --require-approval broadening`,
      'npx cdk deploy ReplayBench-State -c replayIndexStep=4 --require-approval broadening',
      'npx cdk diff --all',
      `npx cdk deploy --all --outputs-file ${join(scratch, 'o7.json')} --require-approval broadening`,
    ]);
    expect(cdk.printed).toContain(
      'The table has indexes from before the narrower ones: step 1 of 4 (docs/deploy.md, "Narrower indexes").',
    );
    // Stopped after its second step: it goes on from there, and deploys the functions again.
    const resumed = fakeCdk(undefined, 1000, ['byUpdated', 'due', 'byHost', 'byUpdatedKeys', 'dueRuns']);
    await deploy({ configFile, outputsFile: join(scratch, 'o8.json') }, resumed.ports(true));
    expect(
      resumed.commands.filter((c) => c.includes('replayIndexStep')).map((c) => /replayIndexStep=(\d)/.exec(c)![1]),
    ).toEqual(['3', '4']);
    // A table with today's indexes, or a first deploy: no step.
    for (const indexes of [['byUpdatedKeys', 'dueRuns', 'byHost'], null]) {
      const plain = fakeCdk(undefined, 1000, indexes);
      await deploy({ configFile, outputsFile: join(scratch, 'o9.json') }, plain.ports(true));
      expect(plain.commands.some((c) => c.includes('replayIndexStep'))).toBe(false);
    }
  });

  it('says --stage is now --deployment rather than deploying the default deployment', () => {
    expect(() => parseDeployArgs(['--stage', 'staging'])).toThrow(/--stage staging is now --deployment staging/);
  });

  it('stops at a wrong configuration or deployment name before any command', async () => {
    const bad = join(scratch, 'bad.json');
    writeFileSync(bad, JSON.stringify({ spaces: { S: { senders: ['mac#1'] } } }));
    const cdk = fakeCdk();
    await expect(deploy({ configFile: bad, outputsFile: 'x' }, cdk.ports(false))).rejects.toThrow(ConfigError);
    await expect(deploy({ configFile, deployment: 'Bad_Name', outputsFile: 'x' }, cdk.ports(false))).rejects.toThrow(
      /not a deployment name/,
    );
    expect(cdk.commands).toEqual([]);
  });

  it('names the region it deploys to and its source, and hands that region to every cdk command', async () => {
    const cdk = fakeCdk();
    await deploy({ configFile, outputsFile: join(scratch, 'o4.json') }, cdk.ports(true));
    expect(cdk.printed[0]).toBe(
      'Deploying to eu-west-1 (from AWS_DEFAULT_REGION) with the credentials of profile default.',
    );
    expect(cdk.environments).toEqual(Array(2).fill({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1' }));
  });

  it("prints the account's Lambda concurrency, and below 100 warns with the quota request that raises it", async () => {
    const roomy = fakeCdk();
    await deploy({ configFile, outputsFile: join(scratch, 'o5.json') }, roomy.ports(true));
    expect(roomy.printed[1]).toBe('Lambda concurrency in eu-west-1: 1000 concurrent executions (1000 unreserved).');
    expect(roomy.printed.join('\n')).not.toMatch(/Warning/);
    const fresh = fakeCdk(undefined, 10);
    await deploy({ configFile, outputsFile: join(scratch, 'o6.json') }, fresh.ports(true));
    expect(fresh.printed[1]).toBe('Lambda concurrency in eu-west-1: 10 concurrent executions (10 unreserved).');
    expect(fresh.printed[2]).toMatch(/^Warning: below 100, .* share 10 executions/);
    expect(fresh.printed[2]).toContain(
      'aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000 --region eu-west-1',
    );
  });

  it('stops when a cdk command fails, running nothing after it', async () => {
    const cdk = fakeCdk('diff');
    await expect(deploy({ configFile, outputsFile: join(scratch, 'o3.json') }, cdk.ports(true))).rejects.toThrow(
      'cdk diff failed (exit 1); nothing after it ran.',
    );
    expect(cdk.commands).toHaveLength(1);
  });
});

describe("the bootstrap check against CloudFormation's query protocol", () => {
  let server: Server;
  let answer: { status: number; xml: string };
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        requests.push(body);
        res.writeHead(answer.status, { 'content-type': 'text/xml' });
        res.end(answer.xml);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const client = () =>
    new CloudFormationClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
  const stack = (status: string) => ({
    status: 200,
    xml:
      `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>CDKToolkit</StackName><StackStatus>` +
      `${status}</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeStacksResponse>`,
  });

  it('finds a bootstrapped account, and asks for the CDKToolkit stack', async () => {
    answer = stack('UPDATE_COMPLETE');
    expect(await toolkitStackReady(client())).toBe(true);
    expect(new URLSearchParams(requests.at(-1)).get('Action')).toBe('DescribeStacks');
    expect(new URLSearchParams(requests.at(-1)).get('StackName')).toBe('CDKToolkit');
  });

  it('finds no bootstrap when the stack does not exist or rolled back', async () => {
    answer = {
      status: 400,
      xml:
        '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack ' +
        'with id CDKToolkit does not exist</Message></Error><RequestId>r</RequestId></ErrorResponse>',
    };
    expect(await toolkitStackReady(client())).toBe(false);
    answer = stack('ROLLBACK_COMPLETE');
    expect(await toolkitStackReady(client())).toBe(false);
  });

  it('passes on any other failure (credentials, throttling) rather than bootstrapping blindly', async () => {
    answer = {
      status: 403,
      xml: '<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not allowed</Message></Error><RequestId>r</RequestId></ErrorResponse>',
    };
    await expect(toolkitStackReady(client())).rejects.toThrow('not allowed');
  });
});
