// The per-host writer policies (infra/aws/pairing-stack.ts): whoever pairs a host may put that host's key
// and read its secret's metadata, never another host's key, never a key's value.
import { describe, expect, it } from '@jest/globals';
import { keySecretName } from '#shared/key-names.ts';
import { parseConfig } from '#schema/config.ts';
import { pairingPolicyName } from '#infra/aws/pairing-stack.ts';
import { DeploymentNames } from '#infra/aws/deployment-names.ts';
import { allowStatements, DeploymentRenderer, iamMatches, type RenderedStatement } from './rendered-policies.ts';
import { synthesize } from './synth.ts';
import { logicalIdOf } from './template-queries.ts';

const config = parseConfig({
  spaces: {
    A: { senders: ['mac-1', 'mac-10'], repos: ['acme/widgets'] },
    B: { senders: ['mac-1'], secretConfigKey: 'Hosting:PartnerLabSecret', repos: ['acme/widgets'] },
  },
});

function writerPolicies(deployment?: string) {
  const synthesized = synthesize(config, { deployment });
  const renderer = new DeploymentRenderer(synthesized.templates);
  const stateName = new DeploymentNames(deployment).prefixed('ReplayBench-State');
  const secretArn = (secretConfigKey: string, host: string) =>
    renderer.ref(
      stateName,
      logicalIdOf(
        synthesized.templates.get(stateName)!,
        'AWS::SecretsManager::Secret',
        (p) => p.Name === new DeploymentNames(deployment).secret(keySecretName(secretConfigKey, host)),
      ),
    );
  const policies = new Map(
    renderer
      .managedPolicies()
      .filter((p) => p.stack === new DeploymentNames(deployment).prefixed('ReplayBench-Pairing'))
      .map((p) => {
        const resource = renderer.resources(p.stack)[p.id]!;
        return [String(resource.Properties!.ManagedPolicyName), p.document as { Statement: RenderedStatement[] }];
      }),
  );
  const may = (policy: string, action: string, arn: string) =>
    allowStatements({ stack: '', roleId: '', inline: [policies.get(policy)], managed: [], trust: null }).some(
      (s) => s.Action.includes(action) && s.Resource.some((r) => iamMatches(r, arn)),
    );
  return { policies, secretArn, may };
}

describe('pairing policies', () => {
  const { policies, secretArn, may } = writerPolicies();

  it('are one per host key, named after it', () => {
    expect([...policies.keys()].sort()).toEqual([
      'ReplayBench-PairHost-Hosting.ModuleReportSecret.mac-1',
      'ReplayBench-PairHost-Hosting.ModuleReportSecret.mac-10',
      'ReplayBench-PairHost-Hosting.PartnerLabSecret.mac-1',
    ]);
  });

  it("let their holder put that host's key and describe its secret, and nothing of mac-10 for mac-1", () => {
    const mac1 = 'ReplayBench-PairHost-Hosting.ModuleReportSecret.mac-1';
    expect(may(mac1, 'secretsmanager:PutSecretValue', secretArn('Hosting:ModuleReportSecret', 'mac-1'))).toBe(true);
    expect(may(mac1, 'secretsmanager:DescribeSecret', secretArn('Hosting:ModuleReportSecret', 'mac-1'))).toBe(true);
    expect(may(mac1, 'secretsmanager:PutSecretValue', secretArn('Hosting:ModuleReportSecret', 'mac-10'))).toBe(false);
    expect(may(mac1, 'secretsmanager:PutSecretValue', secretArn('Hosting:PartnerLabSecret', 'mac-1'))).toBe(false);
    for (const [name, document] of policies) {
      const actions = document.Statement.flatMap((s) => [s.Action].flat());
      expect({ name, actions: actions.sort() }).toEqual({
        name,
        actions: ['secretsmanager:DescribeSecret', 'secretsmanager:PutSecretValue'],
      });
    }
  });

  it("of a named deployment cover that deployment's secrets only", () => {
    const blue = writerPolicies('blue');
    const name = 'blue-ReplayBench-PairHost-Hosting.ModuleReportSecret.mac-1';
    expect(blue.policies.has(name)).toBe(true);
    expect(blue.may(name, 'secretsmanager:PutSecretValue', blue.secretArn('Hosting:ModuleReportSecret', 'mac-1'))).toBe(
      true,
    );
    expect(blue.may(name, 'secretsmanager:PutSecretValue', secretArn('Hosting:ModuleReportSecret', 'mac-1'))).toBe(
      false,
    );
  });

  it('have names IAM takes whatever the host, cut with a hash past 128 characters', () => {
    const long = pairingPolicyName(new DeploymentNames('staging'), 'Hosting:ModuleReportSecret', 'h'.repeat(200));
    expect(long.length).toBe(128);
    expect(long).toMatch(/^staging-ReplayBench-PairHost-Hosting\.ModuleReportSecret\.h+-[0-9a-f]{16}$/);
    expect(pairingPolicyName(new DeploymentNames(), 'Hosting:ModuleReportSecret', 'h'.repeat(199))).not.toBe(long);
  });
});
