// One synth of the largest deployment the stacks are held to (scale-config.ts), shared by every assertion:
// each policy rendered with real ARNs against IAM's size limits, each stack against CloudFormation's.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, keyCandidates, parseConfig } from '#schema/config.ts';
import { COCKPIT_STACKS, cockpitsByStack, MAX_COCKPITS_PER_STACK } from '#infra/aws/cockpit-stack.ts';
import { DeploymentRenderer, IAM_LIMITS, policySize } from './rendered-policies.ts';
import { cockpitNames, FULL_COCKPIT_STACK, SCALE, scaleConfig } from './scale-config.ts';
import { synthesize } from './synth.ts';

/** CloudFormation's quotas per template. */
const CLOUDFORMATION = { resources: 500, outputs: 200 } as const;

const config = scaleConfig();
const { templates } = synthesize(config);
const counts = [...templates].map(([stack, template]) => {
  const json = template.toJSON() as { Resources?: object; Outputs?: object };
  return {
    stack,
    resources: Object.keys(json.Resources ?? {}).length,
    outputs: Object.keys(json.Outputs ?? {}).length,
  };
});
const renderer = new DeploymentRenderer(templates);
const roles = renderer.roles();

describe(`a deployment of ${SCALE.hosts} hosts, ${SCALE.spaces} spaces and ${SCALE.cockpits} cockpits`, () => {
  it('is the configuration it says it is', () => {
    expect(new Set(keyCandidates(config).map((k) => k.host)).size).toBe(SCALE.hosts);
    expect(Object.keys(config.spaces)).toHaveLength(SCALE.spaces);
    expect(Object.keys(config.cockpits)).toHaveLength(SCALE.cockpits);
    expect(Math.max(...Object.values(config.spaces).map((s) => s.senders.length))).toBe(SCALE.hosts);
    expect(new Set(Object.values(config.cockpits).map((c) => c.space)).size).toBe(SCALE.cockpits);
  });

  it(`holds fewer than ${CLOUDFORMATION.resources} resources and at most ${CLOUDFORMATION.outputs} outputs in every stack`, () => {
    expect(counts.map((c) => c.stack)).toEqual([
      'ReplayBench-State',
      'ReplayBench-Pipeline',
      ...Array.from({ length: COCKPIT_STACKS }, (_, i) => `ReplayBench-Cockpits-${i}`),
      'ReplayBench-Pairing',
    ]);
    for (const count of counts)
      expect({
        ...count,
        fits: count.resources < CLOUDFORMATION.resources && count.outputs <= CLOUDFORMATION.outputs,
      }).toEqual({
        ...count,
        fits: true,
      });
  });

  it(`fits ${MAX_COCKPITS_PER_STACK} signed-in cockpits in one cockpit stack`, () => {
    const full = `ReplayBench-Cockpits-${FULL_COCKPIT_STACK}`;
    const outputs = counts.find((c) => c.stack === full)!.outputs;
    expect(outputs).toBe(MAX_COCKPITS_PER_STACK);
    expect(counts.find((c) => c.stack === full)!.resources).toBeLessThan(CLOUDFORMATION.resources);
  });

  it("keeps every role's inline policies within IAM's 10,240 characters, with real ARNs", () => {
    const sizes = roles.map((role) => ({
      role: `${role.stack}/${role.roleId}`,
      size: role.inline.reduce<number>((sum, document) => sum + policySize(document), 0),
    }));
    expect(sizes.length).toBeGreaterThan(SCALE.cockpits);
    for (const { role, size } of sizes)
      expect({ role, within: size <= IAM_LIMITS.inlinePoliciesPerRole, size }).toEqual({ role, within: true, size });
  });

  it("keeps every managed policy within IAM's 6,144 characters, and every role within 10 of them", () => {
    const policies = renderer.managedPolicies();
    expect(policies.length).toBeGreaterThan(0);
    for (const { stack, id, document } of policies) {
      const size = policySize(document);
      expect({ policy: `${stack}/${id}`, within: size <= IAM_LIMITS.managedPolicy, size }).toEqual({
        policy: `${stack}/${id}`,
        within: true,
        size,
      });
    }
    for (const role of roles) expect(role.managed.length).toBeLessThanOrEqual(IAM_LIMITS.managedPoliciesPerRole);
  });

  it('keeps trust policies within 2,048 characters and bucket policies within 20 KB', () => {
    for (const role of roles) expect(policySize(role.trust)).toBeLessThanOrEqual(IAM_LIMITS.trustPolicy);
    for (const { document } of renderer.bucketPolicies())
      expect(policySize(document)).toBeLessThanOrEqual(IAM_LIMITS.bucketPolicy);
  });
});

describe('cockpit stacks', () => {
  const withCockpits = (names: string[]) =>
    parseConfig({
      spaces: { S: { senders: ['mac-1'] } },
      cockpits: Object.fromEntries(names.map((name) => [name, { space: 'S' }])),
    });

  it(`refuse one cockpit more than ${MAX_COCKPITS_PER_STACK} in a stack, with a sentence naming the stack`, () => {
    const names = cockpitNames(MAX_COCKPITS_PER_STACK + 1, (index) => index === 3);
    expect(() => cockpitsByStack(withCockpits(names), (i) => `Stack-${i}`)).toThrow(ConfigError);
    expect(() => cockpitsByStack(withCockpits(names), (i) => `Stack-${i}`)).toThrow(
      new RegExp(
        `\\(${MAX_COCKPITS_PER_STACK + 1}\\) all fall into stack Stack-3, which holds at most ${MAX_COCKPITS_PER_STACK} .*rename one of them`,
      ),
    );
  });

  it('keep a cockpit in its stack whatever other cockpits are added or removed', () => {
    const names = cockpitNames(30, () => true);
    const stackOf = (set: string[], name: string) =>
      cockpitsByStack(withCockpits(set), String).findIndex((stack) => stack.includes(name));
    for (const name of names.slice(0, 5)) {
      const alone = stackOf([name], name);
      expect([stackOf(names, name), stackOf(names.slice(0, 10), name)]).toEqual([alone, alone]);
    }
  });
});
