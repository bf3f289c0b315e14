// One synth of the largest deployment the stacks are held to (scale-config.ts), shared by every assertion:
// each policy rendered with real ARNs against IAM's size limits.
import { describe, expect, it } from '@jest/globals';
import { keyCandidates } from '../../shared/schema/config.ts';
import { DeploymentRenderer, IAM_LIMITS, policySize } from './rendered-policies.ts';
import { SCALE, scaleConfig } from './scale-config.ts';
import { synthesize } from './synth.ts';

const config = scaleConfig();
const { templates } = synthesize(config);
const renderer = new DeploymentRenderer(templates);
const roles = renderer.roles();

describe(`a deployment of ${SCALE.hosts} hosts, ${SCALE.spaces} spaces and ${SCALE.cockpits} cockpits`, () => {
  it('is the configuration it says it is', () => {
    expect(new Set(keyCandidates(config).map((k) => k.host)).size).toBe(SCALE.hosts);
    expect(Object.keys(config.spaces)).toHaveLength(SCALE.spaces);
    expect(Object.keys(config.cockpits)).toHaveLength(SCALE.cockpits);
    expect(Math.max(...Object.values(config.spaces).map((s) => s.senders.length))).toBe(SCALE.hosts);
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
