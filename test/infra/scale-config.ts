// The largest deployment the stacks are held to (docs/deploy.md, "How much one deployment holds"): 200 runner
// hosts, 200 spaces and 100 cockpits, with names as long as real ones. One space is sent to by the whole
// fleet, the others by ten hosts each; a few spaces keep their keys under a second secretConfigKey.
import { parseConfig, type ReplayConfig } from '../../shared/schema/config.ts';

export const SCALE = { hosts: 200, spaces: 200, cockpits: 20 } as const;

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
  const cockpits = Object.fromEntries(
    Array.from({ length: SCALE.cockpits }, (_, i) => [
      `SmallModelsBenchmarks-${String(i).padStart(3, '0')}`,
      { space: spaceName(i * 2), public: i % 4 === 3 },
    ]),
  );
  return parseConfig({ spaces, cockpits, alarms: { email: 'ops@example.com' } });
}
