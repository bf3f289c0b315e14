// The largest deployment the stacks are held to (docs/deploy.md, "How much one deployment holds"): 200 runner
// hosts, 200 spaces and 100 cockpits, with names as long as real ones. One space is sent to by the whole
// fleet, the others by ten hosts each; a few spaces keep their keys under a second secretConfigKey. Each
// cockpit shows a space of its own, and one cockpit stack holds as many signed-in cockpits as it may.
import { parseConfig, type ReplayConfig } from '#schema/config.ts';
import { cockpitStackIndex, MAX_COCKPITS_PER_STACK } from '#infra/aws/cockpit-stack.ts';

export const SCALE = { hosts: 200, spaces: 200, cockpits: 100 } as const;
/** The cockpit stack filled to its bound. */
export const FULL_COCKPIT_STACK = 0;

/** `count` cockpit names, in order, whose stack is (or is not) `stack`. */
export function cockpitNames(count: number, inStack: (index: number) => boolean, start = 0): string[] {
  const names: string[] = [];
  for (let i = start; names.length < count; i++) {
    const name = `SmallModelsBenchmarks-${String(i).padStart(4, '0')}`;
    if (inStack(cockpitStackIndex(name))) names.push(name);
  }
  return names;
}

export function scaleConfig(): ReplayConfig {
  const hosts = Array.from({ length: SCALE.hosts }, (_, i) => (i % 2 ? `mac-studio-${i}` : `mac-mini-m4-${i}`));
  const spaceName = (i: number) => `SmallModelsMeasurements-${String(i).padStart(3, '0')}`;
  const spaces = Object.fromEntries(
    Array.from({ length: SCALE.spaces }, (_, i) => [
      spaceName(i),
      {
        senders: i === 0 ? hosts : Array.from({ length: 10 }, (_, k) => hosts[(i * 10 + k) % SCALE.hosts]!),
        ...(i % 20 === 19 ? { secretConfigKey: 'Hosting:PartnerLabSecret' } : {}),
        repos: ['acme-corp/widgets-platform', 'acme-corp/billing-service'],
      },
    ]),
  );
  const full = cockpitNames(MAX_COCKPITS_PER_STACK, (index) => index === FULL_COCKPIT_STACK);
  const rest = cockpitNames(SCALE.cockpits - full.length, (index) => index !== FULL_COCKPIT_STACK);
  const cockpits = Object.fromEntries(
    [...full, ...rest].map((name, i) => [name, { space: spaceName(i * 2), public: i >= full.length && i % 4 === 3 }]),
  );
  return parseConfig({ spaces, cockpits, alarms: { email: 'ops@example.com' } });
}
